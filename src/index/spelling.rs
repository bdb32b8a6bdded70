//! British and American spellings of one word ("licence"/"license", "organisation"/
//! "organization", "behaviour"/"behavior"): a question and a document that spell a word
//! differently must still meet, in the full-text search and in every term overlap.
//!
//! Owns: the spelling rules and their one word list, folding a word to its American spelling
//! ([`american`], used by the agent's stemmer) and adding the other spelling of each query word
//! ([`with_other_spellings`], used by the full-text search, whose own stemmer does not fold
//! spellings). Must not: stem or search.

/// Words whose British and American spellings differ inside the word, as (British, American)
/// prefixes: the nouns in -ence whose American form is in -ense, and a word too short for the
/// ending rules.
const PAIRS: [(&str, &str); 5] = [
    ("judgement", "judgment"),
    ("licenc", "licens"),
    ("defenc", "defens"),
    ("offenc", "offens"),
    ("pretenc", "pretens"),
];

/// (British, American) endings, longest first within each family: -ise/-ize, -yse/-yze,
/// -our/-or, -tre/-ter, -bre/-ber, -logue/-log, -gramme/-gram, -ledgement/-ledgment and
/// -elled/-eled. Each needs [`MIN_BASE`] letters before it.
const ENDINGS: [(&str, &str); 30] = [
    ("isations", "izations"),
    ("isation", "ization"),
    ("ising", "izing"),
    ("ised", "ized"),
    ("ises", "izes"),
    ("isers", "izers"),
    ("iser", "izer"),
    ("ise", "ize"),
    ("ysing", "yzing"),
    ("ysed", "yzed"),
    ("yse", "yze"),
    ("ourable", "orable"),
    ("ourite", "orite"),
    ("ouring", "oring"),
    ("oured", "ored"),
    ("ours", "ors"),
    ("our", "or"),
    ("tres", "ters"),
    ("tred", "tered"),
    ("tre", "ter"),
    ("bres", "bers"),
    ("bre", "ber"),
    ("logues", "logs"),
    ("logue", "log"),
    ("grammes", "grams"),
    ("gramme", "gram"),
    ("ledgement", "ledgment"),
    ("elled", "eled"),
    ("elling", "eling"),
    ("eller", "eler"),
];

/// Letters an ending rule needs before the ending: short words that merely end like a
/// British spelling ("rise", "hour", "four", "spelled") stay as they are.
const MIN_BASE: usize = 3;

/// The American spelling of a lower-case word written the British way ("organised" →
/// "organized", "licence" → "license", "centre" → "center"); any other word unchanged.
pub fn american(word: &str) -> String {
    respelled(word, false)
}

/// The British spelling of a lower-case word written the American way; any other word
/// unchanged. A word with no British twin may come out as a word no text holds ("doctor" →
/// "doctour"), which a search then simply does not find.
pub fn british(word: &str) -> String {
    respelled(word, true)
}

/// `word` with one pair's first spelling turned into its second (the other way round when
/// `back`).
fn respelled(word: &str, back: bool) -> String {
    let from_to = |(b, a): (&'static str, &'static str)| if back { (a, b) } else { (b, a) };
    for pair in PAIRS {
        let (from, to) = from_to(pair);
        if let Some(rest) = word.strip_prefix(from) {
            return format!("{to}{rest}");
        }
    }
    for pair in ENDINGS {
        let (from, to) = from_to(pair);
        if let Some(base) = word.strip_suffix(from)
            && base.chars().count() >= MIN_BASE
        {
            return format!("{base}{to}");
        }
    }
    word.to_owned()
}

/// `query` followed by the other spelling of each of its words that has one, so that a
/// full-text search for "licences" also finds "licenses".
pub fn with_other_spellings(query: &str) -> String {
    let mut out = query.to_owned();
    let mut added: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphabetic()) {
        let lower = word.to_lowercase();
        for other in [american(&lower), british(&lower)] {
            if other != lower && !added.contains(&other) {
                out.push(' ');
                out.push_str(&other);
                added.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_british_spelling_has_its_american_twin_and_back() {
        for (british_word, american_word) in [
            ("licences", "licenses"),
            ("organisation", "organization"),
            ("authorised", "authorized"),
            ("analysed", "analyzed"),
            ("behaviour", "behavior"),
            ("favourable", "favorable"),
            ("centres", "centers"),
            ("catalogue", "catalog"),
            ("programme", "program"),
            ("acknowledgement", "acknowledgment"),
            ("judgement", "judgment"),
            ("cancelled", "canceled"),
            ("defence", "defense"),
        ] {
            assert_eq!(american(british_word), american_word);
            assert_eq!(british(american_word), british_word);
        }
    }

    #[test]
    fn short_words_that_end_alike_are_left_alone() {
        for w in ["rise", "hour", "four", "your", "spelled", "hatred", "for"] {
            assert_eq!(american(w), w);
            assert_eq!(british(w), w);
        }
    }

    #[test]
    fn a_query_gains_the_other_spelling_of_its_words() {
        let q = with_other_spellings("Who may grant a licence to the Organization?");
        assert!(q.starts_with("Who may grant a licence to the Organization?"));
        assert!(q.contains(" license") && q.contains(" organisation"), "{q}");
        assert_eq!(with_other_spellings("What is the fee"), "What is the fee");
    }
}
