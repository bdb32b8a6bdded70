//! Names a rule requires ("must be named charts-foo-data", "prefixed with mb-") and the names
//! a text gives ("is named buoy-17"), and whether a name fits a rule's template.
//!
//! A rule writes the name it requires as a template of literal parts and placeholders: a run
//! of capitals inside a word that also has lower-case letters ("tidesX.Y", "berthNN"), a
//! bracketed part ("[version]", "<name>", "{name}"), or a metasyntactic word
//! ([`lexicon::PLACEHOLDER_WORDS`]: "foo", "bar", "name", …). A name fits when it begins with
//! the literal before the first placeholder and ends with the literal after the last one; a
//! template without a placeholder ("LEDGER") is the name itself.
//!
//! Owns: reading naming templates and given names, the fit. Must not: decide findings (the
//! audit does, see `audit::check`).

use std::sync::LazyLock;

use super::{Pattern, lexicon, regex};

/// A name a rule requires, as written and as the literal ends a name must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The template as the rule writes it ("charts-foo-data", or "mb-…" for a prefix).
    pub written: String,
    /// What a name must begin with (lower case).
    lead: String,
    /// What a name must end with (lower case).
    tail: String,
    /// No placeholder: the name must be this one.
    exact: bool,
}

impl Template {
    /// Whether `name` fits the template (case does not matter).
    pub fn fits(&self, name: &str) -> bool {
        let n = name.to_lowercase();
        if self.exact {
            return n == self.lead;
        }
        n.len() >= self.lead.len() + self.tail.len()
            && n.starts_with(&self.lead)
            && n.ends_with(&self.tail)
    }

    /// A template from a name as a rule writes it ("chartsfooX.Y-data").
    fn written(token: &str) -> Option<Self> {
        let has_lower = token.chars().any(|c| c.is_lowercase());
        let holes: Vec<(usize, usize)> = PLACEHOLDER
            .as_ref()?
            .find_iter(token)
            .filter(|m| has_lower || !m.as_str().chars().all(|c| c.is_ascii_uppercase()))
            .map(|m| (m.start(), m.end()))
            .collect();
        let (lead, tail, exact) = match (holes.first(), holes.last()) {
            (Some(&(first, _)), Some(&(_, last))) => (&token[..first], &token[last..], false),
            _ => (token, "", true),
        };
        let word = !super::text::content_terms(token).is_empty() || !exact;
        (word && (!lead.is_empty() || !tail.is_empty())).then(|| Self {
            written: token.to_owned(),
            lead: lead.to_lowercase(),
            tail: tail.to_lowercase(),
            exact,
        })
    }
}

/// A placeholder inside a written name: a bracketed part, a run of capitals, a metasyntactic
/// word.
static PLACEHOLDER: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"\[[^\]]*\]|<[^>]*>|\{{[^}}]*\}}|[A-Z]+|{}",
        lexicon::PLACEHOLDER_WORDS.join("|")
    ))
});
/// A written name: letters, digits and the marks names are made of, with a placeholder's
/// brackets; it ends on a letter, a digit, a bracket or a "-" or "_" that joins what follows.
const NAME: &str = r"[“\x22'‘]?([A-Za-z0-9\[<{._-][A-Za-z0-9._+<>{}\[\]-]*[A-Za-z0-9\]>}_+-])";
/// A rule's name: "must (preferably) be named / called T".
static REQUIRED_NAME: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(?:must|shall|should|is to|are to)\s+(?:\w+ly\s+)?be\s+(?:named|called)\s+{NAME}"
    ))
});
/// A rule's prefix or suffix: "… prefixed with T", "… must begin / start / end with T".
static REQUIRED_END: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(prefixed|suffixed|must\s+(?:begin|start|end)|should\s+(?:begin|start|end))\s+(?:with|in)\s+{NAME}"
    ))
});
/// A name a statement gives: "is named N", "are called N".
static GIVEN_NAME: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(?:is|are|was|were)\s+(?:\w+ly\s+)?(?:named|called)\s+{NAME}"
    ))
});

/// The names a rule requires of what it governs.
pub fn required(sentence: &str) -> Vec<Template> {
    let mut out: Vec<Template> = REQUIRED_NAME
        .as_ref()
        .map(|re| {
            re.captures_iter(sentence)
                .filter_map(|c| Template::written(c.get(1)?.as_str()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(re) = REQUIRED_END.as_ref() {
        for c in re.captures_iter(sentence) {
            let (Some(how), Some(part)) = (c.get(1), c.get(2)) else {
                continue;
            };
            let how = how.as_str().to_lowercase();
            let part = part.as_str();
            let at_end = how.starts_with("suffixed") || how.ends_with("end");
            out.push(Template {
                written: if at_end {
                    format!("…{part}")
                } else {
                    format!("{part}…")
                },
                lead: if at_end {
                    String::new()
                } else {
                    part.to_lowercase()
                },
                tail: if at_end {
                    part.to_lowercase()
                } else {
                    String::new()
                },
                exact: false,
            });
        }
    }
    out
}

/// The names a statement gives things ("Our buoy is named buoy-17").
pub fn given(sentence: &str) -> Vec<String> {
    GIVEN_NAME
        .as_ref()
        .map(|re| {
            re.captures_iter(sentence)
                .filter_map(|c| c.get(1))
                .map(|m| m.as_str().trim_end_matches(['.', ',']).to_owned())
                // "named after its donor" names no name.
                .filter(|n| !super::text::content_terms(n).is_empty())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(sentence: &str) -> Template {
        let mut t = required(sentence);
        assert_eq!(t.len(), 1, "{sentence}: {t:?}");
        t.remove(0)
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(crate::agent::rules::all_compile(&[
            &PLACEHOLDER,
            &REQUIRED_NAME,
            &REQUIRED_END,
            &GIVEN_NAME,
        ]));
    }

    #[test]
    fn a_template_fits_names_with_its_literal_ends() {
        let t = template("The package of a chart set must be named charts-foo-data.");
        assert!(t.fits("charts-north-sea-data"));
        assert!(!t.fits("north-sea-charts"));
        let t = template("Each tide table should preferably be called tidesX.Y for its year.");
        assert!(t.fits("tides24.1"));
        assert!(!t.fits("harbour-tides"));
        let t = template("Berth files must be named berth-<number>[suffix].log.");
        assert!(t.fits("berth-12a.log"));
        assert!(!t.fits("berth-12a.txt"));
        // Capitals alone are the name itself.
        let t = template("The harbour's register should be called LEDGER.");
        assert!(t.fits("LEDGER"));
        assert!(!t.fits("ledger-2024"));
    }

    #[test]
    fn prefixes_and_suffixes_are_templates() {
        let t = template("Mooring buoys must have their number prefixed with mb- on the hull.");
        assert!(t.fits("mb-17"));
        assert!(!t.fits("17-mb"));
        let t = template("Every pontoon's name must end with -pier.");
        assert!(t.fits("west-pier"));
        assert!(!t.fits("pier-west"));
    }

    #[test]
    fn a_statement_gives_the_names_it_says_things_are_called() {
        assert_eq!(
            given("Our buoy is named buoy-17."),
            vec!["buoy-17".to_owned()]
        );
        assert_eq!(
            given("The pontoons are called west-pier and east-pier."),
            vec!["west-pier".to_owned()]
        );
        assert!(given("The buoy must be named mb-17.").is_empty());
        assert!(given("The buoy was named after its donor.").is_empty());
        assert!(required("The meeting must be called by the harbour master.").is_empty());
    }
}
