/** A literal of an expression. */
export type Literal = string | number | boolean | null;

/** An expression that does not parse, or is outside its language, at an offset of its text. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}
