export * from "./comment.js";
export * from "./replies.js";
