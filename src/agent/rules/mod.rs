//! The agent's pure heuristics: text utilities, extractive sentence choice, summaries,
//! comparison facts, the values a question asks for, the grounding of what a model wrote and
//! the audit rule engine.
//!
//! Owns: every word list (one copy each, in [`lexicon`]) and every regular expression of the
//! agent, built through [`regex`] so that a pattern that does not compile is reported (and a
//! test in each module compiles them all) instead of silently turning its rule off. Must not:
//! call models or stores; everything here is deterministic over plain data.

pub mod acronyms;
pub mod audit;
pub mod compare;
pub mod extractive;
pub mod grounding;
pub mod lexicon;
pub mod names;
pub mod summary;
pub mod text;
pub mod value;

use std::sync::LazyLock;

use regex::Regex;

/// A lazily compiled regular expression; `None` only if the pattern is invalid, which
/// [`regex`] logs and each module's `every_pattern_compiles` test catches.
pub type Pattern = LazyLock<Option<Regex>>;

/// Compiles a pattern of the agent's rules, logging (never hiding) a pattern that is invalid.
pub fn regex(pattern: &str) -> Option<Regex> {
    match Regex::new(pattern) {
        Ok(re) => Some(re),
        Err(e) => {
            tracing::error!("an agent rule's pattern does not compile: {e}");
            None
        }
    }
}

/// Whether `pattern` matches `text` (false only for an invalid pattern, see [`regex`]).
pub fn matches(pattern: &Pattern, text: &str) -> bool {
    pattern.as_ref().is_some_and(|re| re.is_match(text))
}

/// Forces every pattern and reports the first one that did not compile (for tests).
#[cfg(test)]
pub fn all_compile(patterns: &[&Pattern]) -> bool {
    patterns.iter().all(|p| p.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_pattern_is_reported_not_silently_accepted() {
        assert!(regex(r"(unclosed").is_none());
        assert!(regex(r"\bclosed\b").is_some());
        static BAD: Pattern = LazyLock::new(|| regex(r"[z-a]"));
        static GOOD: Pattern = LazyLock::new(|| regex(r"\d+"));
        assert!(!all_compile(&[&BAD, &GOOD]));
        assert!(all_compile(&[&GOOD]));
        assert!(matches(&GOOD, "page 12"));
        assert!(!matches(&BAD, "anything"));
    }
}
