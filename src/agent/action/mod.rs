//! The actions, one file each: what the agent does once it knows the action and the documents.
//!
//! Owns: one `impl Agent` per action — [`inquire`] (answer a question), [`summarize`] (the main
//! points of documents), [`compare`] (documents or versions side by side; two whole versions
//! clause by clause in [`compare_whole`]), [`audit`] (a text
//! checked against documents; with a model, [`audit_model`]). Each fills the run's answer from
//! verified quotes and says which node comes next. Must not: know the order of the graph's steps beyond its own transition, or
//! persist anything.

mod audit;
mod audit_model;
mod compare;
mod compare_whole;
mod inquire;

pub use inquire::SentenceSignals;
mod summarize;
