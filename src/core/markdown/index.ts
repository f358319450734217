export * from "./author.js";
export * from "./comment.js";
export * from "./replies.js";
