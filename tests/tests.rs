//! Integration tests of the PolicyPal core, as one binary (one link step): real SQLite, real
//! LanceDB, real PDFs and the real all-MiniLM-L6-v2 in temporary data directories.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod agent;
mod bad_input;
mod cli;
mod common;
mod crash;
mod generative;
mod hostile;
mod ingest;
mod isolation;
mod lifecycle;
mod local_model;
mod ocr;
mod openai;
mod review;
mod search;
mod secrets;
mod web;
