// Types for the TypeScript benchmarks that share these helpers.
export function now(): number;
export function median(values: number[]): number;
export function percentile(values: number[], p: number): number;
export function fmt(ms: number): string;
export function fmtRatio(r: number): string;
export function table(header: string[], rows: string[][], align?: string): string;
export function progress(message: string): void;
