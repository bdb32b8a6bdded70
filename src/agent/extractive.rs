//! Extractive answering: pick the best verbatim sentences of the retrieved passages and judge
//! how well they cover the question.
//!
//! Owns: sentence scoring (IDF-weighted term overlap with the question, plus the passage's
//! retrieval rank), selection of at most three non-redundant sentences, and the coverage
//! measure used by the confidence check. Pure functions over plain data; deterministic.
//! Must not: call models or stores.

use std::collections::{HashMap, HashSet};

use super::text::{Sentence, content_terms, sentences, stem};
use super::types::Evidence;

/// A sentence chosen for the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Picked {
    /// Index of the evidence passage.
    pub evidence: usize,
    /// The sentence (byte offsets inside the passage text).
    pub sentence: Sentence,
    /// Character offset of the sentence in the document text.
    pub doc_char: u64,
    /// Score.
    pub score: f32,
}

/// Stemmed content terms of a text.
pub fn stems(text: &str) -> HashSet<String> {
    content_terms(text).iter().map(|t| stem(t)).collect()
}

/// Question terms with weights: the user's own words count fully, words borrowed from earlier
/// turns (follow-ups) count half.
pub fn question_terms(own: &str, context: &str) -> HashMap<String, f32> {
    let mut w: HashMap<String, f32> = HashMap::new();
    for t in content_terms(context) {
        w.insert(stem(&t), 0.5);
    }
    for t in content_terms(own) {
        w.insert(stem(&t), 1.0);
    }
    w
}

/// Specific terms of a question that a supporting passage must contain: acronyms ("GDPR",
/// "SOC"), codes mixing letters and digits ("5D002", "C++17") and quoted phrases.
pub fn anchors(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in question.split_whitespace() {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '+');
        let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
        let acronym = letters.len() >= 2
            && letters.iter().all(|c| c.is_uppercase())
            && w.chars().count() <= 10;
        let code =
            !letters.is_empty() && w.chars().any(|c| c.is_ascii_digit()) && w.chars().count() >= 3;
        if (acronym || code) && !out.iter().any(|o| o.eq_ignore_ascii_case(w)) {
            out.push(w.to_owned());
        }
    }
    let mut rest = question;
    while let Some(start) = rest.find(['"', '“']) {
        let after = &rest[start + rest[start..].chars().next().map_or(1, char::len_utf8)..];
        let Some(end) = after.find(['"', '”']) else {
            break;
        };
        let phrase = after[..end].trim();
        if phrase.split_whitespace().count() >= 2 {
            out.push(phrase.to_owned());
        }
        rest = &after[end + 1..];
    }
    out
}

/// The anchors that none of the texts contains (case-insensitive).
pub fn missing_anchors(question: &str, texts: &[&str]) -> Vec<String> {
    let lower: Vec<String> = texts
        .iter()
        .map(|t| {
            t.to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    anchors(question)
        .into_iter()
        .filter(|a| {
            let a = a.to_lowercase();
            !lower.iter().any(|t| t.contains(&a))
        })
        .collect()
}

/// IDF of each question term over a set of texts (the candidate sentences).
fn idf(terms: &HashMap<String, f32>, docs: &[HashSet<String>]) -> HashMap<String, f32> {
    let n = docs.len().max(1) as f32;
    terms
        .keys()
        .map(|t| {
            let df = docs.iter().filter(|d| d.contains(t)).count() as f32;
            (t.clone(), (1.0 + n / (1.0 + df)).ln())
        })
        .collect()
}

/// Weighted share of the question's terms present in `text`.
pub fn coverage(terms: &HashMap<String, f32>, text: &str) -> f32 {
    let total: f32 = terms.values().sum();
    if total == 0.0 {
        return 0.0;
    }
    let have = stems(text);
    terms
        .iter()
        .filter(|(t, _)| have.contains(*t))
        .map(|(_, w)| *w)
        .sum::<f32>()
        / total
}

/// Picks up to `max` sentences that best answer the question, best first.
pub fn pick(terms: &HashMap<String, f32>, evidence: &[Evidence], max: usize) -> Vec<Picked> {
    struct Cand {
        evidence: usize,
        sentence: Sentence,
        stems: HashSet<String>,
        position: usize,
    }
    let mut cands = Vec::new();
    for (ei, e) in evidence.iter().enumerate() {
        for (position, s) in sentences(&e.text).into_iter().enumerate() {
            let letters = s.text.chars().filter(|c| c.is_alphabetic()).count();
            if letters < 12 {
                continue;
            }
            let st = stems(&s.text);
            cands.push(Cand {
                evidence: ei,
                sentence: s,
                stems: st,
                position,
            });
        }
    }
    if cands.is_empty() {
        return Vec::new();
    }
    let weights = idf(
        terms,
        &cands.iter().map(|c| c.stems.clone()).collect::<Vec<_>>(),
    );
    let total: f32 = terms
        .iter()
        .map(|(t, w)| w * weights.get(t).copied().unwrap_or(0.0))
        .sum::<f32>()
        .max(1e-6);
    let n_ev = evidence.len().max(1) as f32;
    let score = |c: &Cand| -> f32 {
        let overlap: f32 = terms
            .iter()
            .filter(|(t, _)| c.stems.contains(*t))
            .map(|(t, w)| w * weights.get(t).copied().unwrap_or(0.0))
            .sum::<f32>()
            / total;
        let rank_prior = 1.0 - c.evidence as f32 / n_ev;
        let len = c.sentence.text.chars().count();
        let length_factor = if len < 40 {
            0.7
        } else if len > 600 {
            0.8
        } else {
            1.0
        };
        (0.8 * overlap + 0.2 * rank_prior) * length_factor
    };
    let mut scored: Vec<(f32, usize)> = cands
        .iter()
        .enumerate()
        .map(|(i, c)| (score(c), i))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let Some(&(best, best_i)) = scored.first() else {
        return Vec::new();
    };
    let mut chosen: Vec<usize> = vec![best_i];
    let mut covered: HashSet<String> = cands[best_i]
        .stems
        .iter()
        .filter(|s| terms.contains_key(*s))
        .cloned()
        .collect();
    // The sentence right after the best one often finishes its thought.
    let next = cands.iter().position(|c| {
        c.evidence == cands[best_i].evidence && c.position == cands[best_i].position + 1
    });
    for &(s, i) in scored.iter().skip(1) {
        if chosen.len() >= max {
            break;
        }
        let c = &cands[i];
        let adds: HashSet<&String> = c
            .stems
            .iter()
            .filter(|t| terms.contains_key(*t) && !covered.contains(*t))
            .collect();
        let continuation = Some(i) == next && s >= 0.35 * best;
        let strong = s >= 0.75 * best && !adds.is_empty();
        let duplicate = chosen
            .iter()
            .any(|&j| jaccard(&cands[j].stems, &c.stems) > 0.6);
        if (continuation || strong) && !duplicate {
            covered.extend(adds.into_iter().cloned());
            chosen.push(i);
        }
    }
    chosen
        .into_iter()
        .map(|i| {
            let c = &cands[i];
            let e = &evidence[c.evidence];
            let before = e.text[..c.sentence.start].chars().count() as u64;
            Picked {
                evidence: c.evidence,
                sentence: c.sentence.clone(),
                doc_char: e.char_start + before,
                score: score(c),
            }
        })
        .collect()
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f32 {
    let inter = a.intersection(b).count() as f32;
    let union = a.union(b).count() as f32;
    if union == 0.0 { 0.0 } else { inter / union }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(text: &str, rank: usize) -> Evidence {
        Evidence {
            chunk_id: format!("d:{rank}"),
            document_id: "d".into(),
            text: text.into(),
            char_start: 100 * rank as u64,
            page: 1,
            vector_score: 0.5,
            text_rank: Some(rank + 1),
            score: 0.1,
        }
    }

    #[test]
    fn anchors_are_acronyms_codes_and_quoted_phrases() {
        assert_eq!(
            anchors("Which SOC 2 criteria apply, and is ECCN 5D002 or C++17 named?"),
            vec!["SOC", "ECCN", "5D002", "C++17"]
        );
        assert_eq!(
            anchors("What does \"legal hold\" mean for a Bank?"),
            vec!["legal hold"]
        );
        assert_eq!(
            missing_anchors("Does GDPR apply?", &["The gdpr applies."]),
            Vec::<String>::new()
        );
        assert_eq!(
            missing_anchors("Does HIPAA apply?", &["The gdpr applies."]),
            vec!["HIPAA"]
        );
    }

    #[test]
    fn picks_the_sentence_that_answers_and_maps_its_offset() {
        let evidence = vec![
            ev(
                "The board meets monthly. A licensed bank must maintain a minimum total capital ratio of 8 per cent of its risk-weighted assets.",
                0,
            ),
            ev(
                "Penalties apply to late returns. Returns are due within 14 days.",
                1,
            ),
        ];
        let terms = question_terms("What minimum capital ratio must a bank maintain?", "");
        let picked = pick(&terms, &evidence, 3);
        assert!(
            picked[0]
                .sentence
                .text
                .starts_with("A licensed bank must maintain"),
            "{picked:?}"
        );
        assert_eq!(picked[0].doc_char, 25);
        assert!(coverage(&terms, &picked[0].sentence.text) > 0.7);
        assert!(
            coverage(
                &question_terms("What does HIPAA require for encryption?", ""),
                &evidence[0].text
            ) < 0.3
        );
    }
}
