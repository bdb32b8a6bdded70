//! The agent's word lists, one copy each: spelled-out numbers, units, currencies, negations,
//! removal verbs and modal verbs of obligation.
//!
//! Owns: English vocabulary that several rules share, as data (tables and regex alternations).
//! Must not: hold a word because one question or document needed it; every list names the
//! general pattern it serves.

/// Numbers as words, with their values ("seven years", "within thirty days").
pub const NUMBERS: [(&str, f64); 28] = [
    ("zero", 0.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
];

/// The number words as a regex alternation, longest first ("seventeen|…|four|…|one"), for
/// patterns that accept a number written either way. An alternation takes its first branch
/// that matches, so "four" before "fourteen" read "within fourteen days" as 4 "teen".
pub fn number_words() -> String {
    let mut words = NUMBERS.map(|(w, _)| w);
    words.sort_by_key(|w| std::cmp::Reverse(w.len()));
    words.join("|")
}

/// The value of a number written as digits ("1,000", "2.5") or as a word ("seven").
pub fn number(word: &str) -> Option<f64> {
    let w = word.to_lowercase();
    NUMBERS
        .iter()
        .find(|(s, _)| *s == w)
        .map(|(_, v)| *v)
        .or_else(|| w.replace(',', "").parse().ok())
}

/// Currency codes and signs written before an amount (regex alternation).
pub const CURRENCIES: &str = r"USD|EUR|GBP|RM|MYR|\$|€|£";

/// Currencies written after an amount, as words or codes ("45 euros", "200 EUR", "10 pounds
/// sterling", "2,000,000 crowns") (regex alternation).
pub const CURRENCY_WORDS: &str = r"euros?|pounds?(?:\s+sterling)?|dollars?|francs?|yen|ringgit|crowns?|kron(?:a|e|or|er)|dirhams?|rupees?|rand|yuan|pesos?|lira|zloty|USD|EUR|GBP|CHF|JPY|MYR|AED|SEK|NOK|DKK";

/// Whether a word is a currency code of [`CURRENCIES`] ("USD"): a unit of an amount, never
/// the subject of a question.
pub fn is_currency(word: &str) -> bool {
    CURRENCIES
        .split('|')
        .any(|c| c.chars().all(char::is_alphabetic) && c.eq_ignore_ascii_case(word))
}

/// Whether a word is a currency code of [`CURRENCIES`] or [`CURRENCY_WORDS`] written in
/// capitals ("USD", "CHF").
pub fn is_currency_code(word: &str) -> bool {
    CURRENCIES
        .split('|')
        .chain(CURRENCY_WORDS.split('|'))
        .any(|c| c.len() >= 2 && c.chars().all(|ch| ch.is_ascii_uppercase()) && c == word)
}

/// Metasyntactic words that stand for any name inside a name a rule requires ("charts-foo-data",
/// "berth-name"); see `names::Template`.
pub const PLACEHOLDER_WORDS: [&str; 6] = ["foo", "bar", "baz", "qux", "name", "version"];

/// Percent written after a number (regex alternation).
pub const PERCENT: &str = r"%|per\s?cent|percent";

/// Units of measure a question may ask a value in ("the maximum size in megabytes"), with the
/// symbols a text may write them with (lower case); see `value::Asks::unmet`.
pub const MEASURE_UNITS: [(&str, &[&str]); 18] = [
    ("bytes", &["b", "byte"]),
    ("kilobytes", &["kb", "kib", "kilobyte"]),
    ("megabytes", &["mb", "mib", "megabyte"]),
    ("gigabytes", &["gb", "gib", "gigabyte"]),
    ("terabytes", &["tb", "tib", "terabyte"]),
    ("characters", &["character", "chars"]),
    ("words", &["word"]),
    ("lines", &["line"]),
    ("pages", &["page"]),
    ("percent", &["%", "per cent"]),
    ("seconds", &["second", "s", "sec"]),
    ("minutes", &["minute", "min"]),
    ("hours", &["hour", "h"]),
    ("metres", &["metre", "m", "meters", "meter"]),
    (
        "kilometres",
        &["kilometre", "km", "kilometers", "kilometer"],
    ),
    ("kilograms", &["kilogram", "kg"]),
    ("grams", &["gram", "g"]),
    ("miles", &["mile"]),
];

/// Units of time written after a number, singular or plural (regex alternation).
pub const TIME_UNITS: &str = r"days?|weeks?|months?|years?|hours?|minutes?|business\s+days?|working\s+days?|calendar\s+days?";

/// Words that negate what follows them ("not", "never", "without", …); a word ending in
/// "n't" negates too (see [`is_negation`]).
pub const NEGATIONS: [&str; 11] = [
    "not", "no", "never", "without", "nothing", "none", "neither", "nor", "nobody", "cannot",
    "lack",
];

/// Whether one lower-case word negates.
pub fn is_negation(word: &str) -> bool {
    NEGATIONS.contains(&word) || word.ends_with("n't")
}

/// Stems of verbs that mean taking something away or out of operation ("strip", "deleted",
/// "omitting", "disable the service", "stop unneeded daemons"); see [`is_removal`].
pub const REMOVAL_VERBS: [&str; 15] = [
    "delete",
    "remove",
    "drop",
    "strip",
    "omit",
    "discard",
    "erase",
    "purge",
    "exclude",
    "abolish",
    "withdraw",
    "waive",
    "disable",
    "deactivate",
    "stop",
];

/// Stems of verbs that keep something from happening ("avoid logging in as root", "refrain
/// from", "abstain from voting", "recuse oneself from a decision", "disallow remote logins",
/// "prevent access"): what they govern is to be absent, as if negated; see [`is_avoidance`].
pub const AVOIDANCE_VERBS: [&str; 8] = [
    "avoid", "refrain", "abstain", "recuse", "disallow", "forbid", "prohibit", "prevent",
];

/// Whether one lower-case word is a form of an avoidance verb (the stem plus a short ending).
pub fn is_avoidance(word: &str) -> bool {
    AVOIDANCE_VERBS
        .iter()
        .any(|r| word.starts_with(r) && word.len() <= r.len() + 4)
}

/// Whether one lower-case word is a form of a removal verb (the stem plus a short ending).
pub fn is_removal(word: &str) -> bool {
    REMOVAL_VERBS
        .iter()
        .any(|r| word.starts_with(r) && word.len() <= r.len() + 4)
}

/// Kinds of organisation a question can ask to be named ("Which bank …", "What insurer …"):
/// the answer is a name, which a text writes with a capital. Singular only: "Which suppliers
/// are …" asks for a kind of supplier, not a name. Bodies that regulations name by a defined
/// term ("the Regulator") are left out.
pub const ORGANISATIONS: [&str; 16] = [
    "airline",
    "auditor",
    "bank",
    "broker",
    "carrier",
    "company",
    "consultancy",
    "courier",
    "custodian",
    "firm",
    "hotel",
    "insurer",
    "manufacturer",
    "provider",
    "supplier",
    "vendor",
];

/// Kinds of place whose name a question can ask for by its possessive ("Which country's law
/// governs …", "Which state's courts …"): the answer is a name, written with a capital.
pub const PLACES: [&str; 9] = [
    "country",
    "county",
    "city",
    "jurisdiction",
    "nation",
    "province",
    "region",
    "state",
    "territory",
];

/// Nouns whose amount is a length of time: "How much notice …", "how much leave …" ask for
/// days or weeks, as "how much time" does.
pub const PERIOD_NOUNS: [&str; 8] = [
    "time", "notice", "leave", "warning", "holiday", "vacation", "downtime", "respite",
];

/// Words English writes with a capital that name no party: the months and the days of the
/// week ("by 31 March", "every Friday").
pub const CALENDAR_NAMES: [&str; 19] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Auxiliaries and modals that open a verb phrase ("Which bank *is* used", "Which firm *must*
/// audit …").
pub const AUXILIARIES: [&str; 16] = [
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "must", "may", "should",
    "can", "will", "shall",
];

/// Modal phrases of obligation and permission, longest first so that "must not" is read before
/// "must".
pub const MODALS: [&str; 9] = [
    "must not",
    "shall not",
    "may not",
    "must",
    "shall",
    "should",
    "may",
    "is required to",
    "is encouraged to",
];

/// Phrases with a negation word that affirm the act they qualify ("notify … without undue
/// delay" requires notifying, promptly), as read by the audit rules: (phrase, meaning), lower
/// case and padded with spaces.
pub const AFFIRMING_IDIOMS: [(&str, &str); 5] = [
    (" without undue delay ", " promptly "),
    (" without unreasonable delay ", " promptly "),
    (" without delay ", " promptly "),
    (" without exception ", " always "),
    (" without fail ", " always "),
];

/// Phrases by which a rule gives something without payment, padded with spaces ("shall be
/// provided free of charge", "moorings let at no charge", "a no-charge tide table"); see
/// `audit::Clause::free_of_charge`.
pub const FREE_OF_CHARGE: [&str; 7] = [
    " free of charge",
    " at no charge",
    " no-charge",
    " without charge",
    " at no cost",
    " free of cost",
    " without payment",
];

/// Words by which a text grants something rather than requiring or forbidding it ("traders may
/// accept …", "this is acceptable when …"); see `audit::permits`.
pub const PERMISSIVE: [&str; 7] = [
    "may",
    "can",
    "allowed",
    "permitted",
    "acceptable",
    "fine",
    "entitled",
];

/// Nouns a cross-reference puts before a clause number ("as described in section 4.2", "under
/// Rule 11.2.1"); a line ending in one stops mid-reference. See `text::sentences`.
pub const REFERENCE_NOUNS: [&str; 12] = [
    "section",
    "subsection",
    "clause",
    "rule",
    "paragraph",
    "article",
    "chapter",
    "part",
    "schedule",
    "appendix",
    "annex",
    "regulation",
];

/// Whether a word (any case, singular or plural) is one of [`REFERENCE_NOUNS`].
pub fn is_reference_noun(word: &str) -> bool {
    let w = word.to_lowercase();
    let singular = w.strip_suffix('s').unwrap_or(&w);
    REFERENCE_NOUNS.iter().any(|n| *n == w || *n == singular)
}

/// Words of a request for a summary that say what is wanted of the document, never what part
/// of it ("Summarize the code's *advice* on …", "an *overview* of …"): what is left
/// of a request without them and the document's name is the part it asks about (see
/// `summary::focus`).
pub const SUMMARY_WORDS: [&str; 17] = [
    "summarize",
    "summarise",
    "summary",
    "overview",
    "give",
    "key",
    "points",
    "main",
    "advice",
    "rules",
    "guidance",
    "guidelines",
    "requirements",
    "provisions",
    "says",
    "say",
    "text",
];

/// Nouns that name a document or a version of one: a question asking "which policy …" asks
/// which text says something, not for a thing the text names. See `value::asked_noun`.
pub const DOCUMENT_NOUNS: [&str; 6] = [
    "document",
    "policy",
    "policies",
    "standard",
    "procedure",
    "version",
];

/// Bounds worded with a negation that negates nothing ("not less than three members", "no
/// later than 30 days"): a rule that sets one requires what it governs.
pub const NEGATED_BOUNDS: [&str; 8] = [
    "not less than",
    "no less than",
    "not more than",
    "no more than",
    "not fewer than",
    "no fewer than",
    "not later than",
    "no later than",
];

/// Nouns a text uses for itself or one of its parts when it says what it is about ("This
/// manual explains …", "This chapter sets out …"). See `text::describes_itself`.
pub const SELF_NOUNS: [&str; 19] = [
    "document",
    "guidelines",
    "draft",
    "proposal",
    "specification",
    "manual",
    "policy",
    "guide",
    "handbook",
    "section",
    "chapter",
    "page",
    "standard",
    "procedure",
    "rulebook",
    "part",
    "appendix",
    "annex",
    "note",
];

/// Whether a word is one of [`SELF_NOUNS`], in either number ("policies", "manuals").
pub fn is_self_noun(word: &str) -> bool {
    let w = word.to_lowercase();
    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
    let singular = w
        .strip_suffix("ies")
        .map(|s| format!("{s}y"))
        .or_else(|| w.strip_suffix('s').map(str::to_owned));
    SELF_NOUNS
        .iter()
        .any(|n| *n == w || singular.as_deref() == Some(*n))
}

/// Verbs by which a text says what it is about rather than what it rules ("This guide
/// describes how …"). Not "provides", "requires" or "applies": "This policy provides that …",
/// "This standard applies to all staff" rule. See `text::describes_itself`.
pub const DESCRIBING_VERBS: [&str; 11] = [
    "describes",
    "explains",
    "outlines",
    "sets out",
    "covers",
    "summarises",
    "summarizes",
    "introduces",
    "presents",
    "discusses",
    "gives an overview",
];

/// Past forms of irregular English verbs, with the verb's base: rules say "records are kept",
/// questions ask "how long do we keep …" (see `text::stem`). Forms that are also common words
/// of another sense ("left", "found", "bound", "saw", "lay") are not here.
pub const IRREGULAR_FORMS: [(&str, &str); 46] = [
    ("sent", "send"),
    ("kept", "keep"),
    ("held", "hold"),
    ("paid", "pay"),
    ("made", "make"),
    ("given", "give"),
    ("gave", "give"),
    ("taken", "take"),
    ("took", "take"),
    ("written", "write"),
    ("wrote", "write"),
    ("chosen", "choose"),
    ("chose", "choose"),
    ("told", "tell"),
    ("sold", "sell"),
    ("brought", "bring"),
    ("bought", "buy"),
    ("built", "build"),
    ("met", "meet"),
    ("begun", "begin"),
    ("began", "begin"),
    ("known", "know"),
    ("knew", "know"),
    ("shown", "show"),
    ("drawn", "draw"),
    ("drew", "draw"),
    ("seen", "see"),
    ("done", "do"),
    ("gone", "go"),
    ("went", "go"),
    ("lost", "lose"),
    ("spent", "spend"),
    ("lent", "lend"),
    ("dealt", "deal"),
    ("meant", "mean"),
    ("led", "lead"),
    ("withdrawn", "withdraw"),
    ("withdrew", "withdraw"),
    ("forbidden", "forbid"),
    ("forbade", "forbid"),
    ("undertaken", "undertake"),
    ("undertook", "undertake"),
    ("arisen", "arise"),
    ("arose", "arise"),
    ("borne", "bear"),
    ("thought", "think"),
];

/// Irregular plurals of English nouns, with the singular: a rule counts "three people", a text
/// "one person" (see `text::stem`).
pub const IRREGULAR_PLURALS: [(&str, &str); 5] = [
    ("people", "person"),
    ("men", "man"),
    ("women", "woman"),
    ("children", "child"),
    ("feet", "foot"),
];

/// The base of an irregular form: a verb's past ([`IRREGULAR_FORMS`]) or a noun's plural
/// ([`IRREGULAR_PLURALS`]); looked up for every word stemmed.
pub fn irregular_base(form: &str) -> Option<&'static str> {
    static BASES: std::sync::LazyLock<std::collections::HashMap<&str, &str>> =
        std::sync::LazyLock::new(|| {
            IRREGULAR_FORMS
                .into_iter()
                .chain(IRREGULAR_PLURALS)
                .collect()
        });
    BASES.get(form).copied()
}

/// Prepositions that open a phrase after a verb ("sit *on*", "report *to*"); "of" is not
/// here: after a noun it continues the noun phrase ("members *of* the board").
pub const PREPOSITIONS: [&str; 19] = [
    "on", "in", "at", "to", "from", "with", "for", "into", "onto", "over", "under", "before",
    "after", "during", "within", "by", "about", "between", "as",
];

/// Words that open a noun phrase or a clause, never an instruction's verb: articles,
/// determiners, pronouns, quantifiers and conjunctions ("*The* hull is washed", "*Each* member
/// …", "*If* …" against "*Drain* the tank").
pub const NOT_VERBS: [&str; 40] = [
    "a", "an", "the", "this", "that", "these", "those", "such", "each", "every", "all", "any",
    "some", "no", "its", "their", "his", "her", "our", "your", "my", "it", "they", "we", "you",
    "he", "she", "i", "there", "if", "when", "where", "while", "and", "or", "but", "one", "both",
    "either", "other",
];

/// Nouns that count persons whoever they are ("how many people …"): any count of persons
/// answers them, whatever noun the text counts them by ("five members", "three trustees").
pub const ANYONE: [&str; 4] = ["people", "persons", "individuals", "staff"];

/// Nouns that name a capability given to someone, read with the infinitive after them ("the
/// ability to opt out", "no way to object", "the option to decline", "the right to appeal"): a
/// rule that requires the capability requires that act, and a text that gives "no way to" do
/// it denies it.
pub const CAPABILITY_NOUNS: [&str; 8] = [
    "ability",
    "way",
    "option",
    "means",
    "possibility",
    "opportunity",
    "chance",
    "right",
];

/// Words for how many there are of something the sentence names ("their *number* at a minimum
/// of three", "a *total* of 12 seats").
pub const COUNT_NOUNS: [&str; 3] = ["number", "total", "count"];

/// Whether a lower-case word reads as a plural noun or a verb in -s ("providers", "holds"),
/// not a word that merely ends in s ("class", "bus"): longer than three letters, not in -ss.
pub fn ends_like_plural(word: &str) -> bool {
    word.len() > 3 && word.ends_with('s') && !word.ends_with("ss")
}

/// Short words an acronym may leave out of its letters ("Department of Harbours" is "DH" as
/// well as "DOH"); see `acronyms::defined`.
pub const LEFT_OUT_OF_ACRONYMS: [&str; 6] = ["of", "and", "the", "for", "on", "&"];

/// Words that open a noun phrase before its noun ("*the* notice period", "*their* lockers",
/// "*each* berth"): what follows them is a thing, not a verb's clause.
pub const NOUN_DETERMINERS: [&str; 9] = [
    "the", "a", "an", "its", "their", "each", "every", "our", "your",
];

/// Determiners of an indefinite noun phrase ("*a* mooring fee", "*any* guest"): the phrase names
/// no particular thing, so no particular document either.
pub const INDEFINITE: [&str; 4] = ["a", "an", "any", "another"];

/// Determiners that open the group "one of …" picks from ("one of the tasks", "one of its
/// members"): a partitive, not a count.
pub const DETERMINERS: [&str; 13] = [
    "the", "these", "those", "its", "their", "our", "his", "her", "your", "my", "many", "several",
    "some",
];

/// Determiners that point back at something named before ("this register", "such records", "these
/// files"); see `extractive::refers_back`.
pub const DEMONSTRATIVES: [&str; 5] = ["this", "that", "these", "those", "such"];

/// Words that, opening a sentence, stand for or draw on what the sentence before it said:
/// personal pronouns ("They must …", "Its owner …") and connectives of consequence or
/// contrast ("Therefore …", "Otherwise …"). "It" is read apart (see `extractive::refers_back`):
/// "It is …" usually introduces a clause ("It is recommended that …"), not an earlier noun.
pub const BACK_OPENERS: [&str; 16] = [
    "it",
    "its",
    "they",
    "them",
    "their",
    "he",
    "she",
    "his",
    "her",
    "therefore",
    "thus",
    "hence",
    "otherwise",
    "accordingly",
    "consequently",
    "instead",
];

/// Questions about the library itself, answered from its catalogue (titles, kinds, versions)
/// rather than from any page: matched on whole words anywhere in a message.
pub const CATALOGUE_QUESTIONS: [&str; 5] = [
    "which documents do i have",
    "what documents do i have",
    "which documents are in",
    "what is in my library",
    "what's in my library",
];

/// Questions about versions, which ask the catalogue only when they ask what the library holds
/// ([`LIBRARY_HOLDS`]): "which versions of the bylaws do I have?", but not "which versions of
/// the software are supported?", which a page answers.
pub const VERSION_QUESTIONS: [&str; 2] = ["which versions", "what versions"];

/// What the library holds, in a question ([`VERSION_QUESTIONS`]).
pub const LIBRARY_HOLDS: [&str; 6] = [
    "do i have",
    "do we have",
    "in my library",
    "in the library",
    "have i added",
    "have we added",
];

/// Requests to list the library, matched on whole words at the start of a message (after
/// [`REQUEST_OPENERS`]): an imperative. "List" inside a sentence is a verb of the question's
/// own subject ("records the schedule does not list").
pub const CATALOGUE_REQUESTS: [&str; 3] = ["list my", "list all", "list the"];

/// Words a request may open with before its verb ("please list …", "can you list …").
pub const REQUEST_OPENERS: [&str; 5] = ["please", "can you", "could you", "would you", "kindly"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_word_is_matched_whole_not_by_a_shorter_word_it_starts_with() {
        let re = regex::Regex::new(&format!(r"(?i)\b({})\s*([a-z]+)", number_words())).unwrap();
        for (text, word) in [
            ("within fourteen days", "fourteen"),
            ("sixteen berths", "sixteen"),
            ("seventy crates", "seventy"),
            ("nineteen hours", "nineteen"),
        ] {
            assert_eq!(&re.captures(text).unwrap()[1], word);
        }
    }

    #[test]
    fn numbers_read_as_words_and_digits() {
        assert_eq!(number("Seventy"), Some(70.0));
        // Regression: "eighteen months" was no number, and a question asking how long was
        // refused though the answer was quoted.
        assert_eq!(number("eighteen"), Some(18.0));
        assert_eq!(number("eighty"), Some(80.0));
        assert_eq!(number("1,250"), Some(1250.0));
        assert_eq!(number("2.5"), Some(2.5));
        assert_eq!(number("several"), None);
        let words = number_words();
        let alternation: Vec<&str> = words.split('|').collect();
        assert_eq!(alternation.len(), NUMBERS.len());
        assert!(NUMBERS.iter().all(|(w, _)| alternation.contains(w)));
        // Longest first: no word comes before a longer one it starts ("four", "fourteen").
        assert!(alternation.windows(2).all(|w| w[0].len() >= w[1].len()));
    }

    #[test]
    fn negations_and_removals_are_read_per_word() {
        for w in ["never", "won't", "cannot", "without"] {
            assert!(is_negation(w), "{w}");
        }
        assert!(!is_negation("note"));
        for w in ["withdrawn", "erased", "omitting", "waived"] {
            assert!(is_removal(w), "{w}");
        }
        assert!(!is_removal("dropshipping"));
        for w in [
            "avoided",
            "refrains",
            "disallowing",
            "prevents",
            "abstained",
            "recuses",
        ] {
            assert!(is_avoidance(w), "{w}");
        }
        assert!(!is_avoidance("prevention-and-detection-team") && !is_avoidance("void"));
        assert!(!is_removal("stripe-payments"));
    }

    #[test]
    fn currency_codes_are_recognised_as_units() {
        assert!(is_currency("usd") && is_currency("EUR"));
        assert!(!is_currency("USB") && !is_currency("$"));
    }

    #[test]
    fn longer_modals_come_before_their_prefixes() {
        let pos = |m: &str| MODALS.iter().position(|x| *x == m);
        assert!(pos("must not") < pos("must"));
        assert!(pos("may not") < pos("may"));
        assert!(pos("shall not") < pos("shall"));
    }
}
