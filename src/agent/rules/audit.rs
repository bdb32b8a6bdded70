//! Extractive audit rules: which sentences of a target document are obligations, which
//! statements of the audited text they bear on, and when the two conflict.
//!
//! Owns: the deterministic rule engine of extractive audits — deontic reading of clauses
//! (obligation / prohibition / permission, and what they govern), the polarity of statements
//! (negated, removed, "instead of"), required locations, values and numeric bounds — and the
//! wording of findings. A conflict is flagged only when a rule detects it, never on similarity
//! alone: a text that does what a clause requires comes back without findings.
//! Pure functions; deterministic. Must not: call models or stores, or decide relevance from
//! similarity scores it was not given.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::lexicon::{self, CURRENCIES, CURRENCY_WORDS, PERCENT, TIME_UNITS};
use super::names;
use super::{Pattern, regex};

use super::text;
use crate::agent::types::{AuditRule, Severity};

/// How a clause binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deontic {
    /// Requires something (must, shall, should, make sure, provided that, a list condition).
    Obligation,
    /// Forbids something (must not, may not, never, do not, neither … nor … may).
    Prohibition,
    /// Allows something (may, is permitted, need not).
    Permission,
}

/// A sentence of a target document read as a rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    /// Obligation, prohibition or permission.
    pub deontic: Deontic,
    /// Mandatory (must, shall, never) rather than recommended (should).
    pub strong: bool,
    /// The governed content requires the thing to happen (`true`) or not to happen.
    pub positive: bool,
    /// Terms (stems and concepts) of the whole clause.
    pub terms: HashSet<String>,
    /// Terms of the governed part (after the modal).
    pub scope: HashSet<String>,
    /// The act the clause governs: the first content word after the modal ("shall not
    /// *transfer* personal data", "must be *recorded*"), as stem and concept. A text speaks to
    /// the clause's polarity only if it names that act: "Personal data stays in the United
    /// Kingdom" shares "personal data" with "shall not transfer personal data outside …" and
    /// with "shall delete all personal data …", and does neither. Empty (any act) for a line
    /// that states a measure without a modal: its act is in its subject.
    pub act: HashSet<String>,
    /// Locations the clause requires ("must be placed in /run").
    pub required_paths: Vec<String>,
    /// Names the clause requires of what it governs ("must be named charts-foo-data",
    /// "prefixed with mb-"; see [`names`]).
    pub required_names: Vec<names::Template>,
    /// Labelled values the clause requires ("mode 755").
    pub values: Vec<(String, String)>,
    /// Numeric bounds the clause sets.
    pub bounds: Vec<Bound>,
    /// Terms of the event the required act must come before ("before connecting to any
    /// network", "prior to collection"), empty when the clause sets no order.
    pub before: HashSet<String>,
    /// Thresholds from which the clause applies ("every claim above 25 euros").
    pub thresholds: Vec<(String, f64, Dimension)>,
    /// What it governs is given free ("shall be provided free of charge", "at no charge"; see
    /// `lexicon::FREE_OF_CHARGE`).
    pub free_of_charge: bool,
    /// What its "only" restricts to, as written and as terms ("paid only into a bank account in
    /// the agent's own name"): a text that allows any one of that kind breaks it. Empty
    /// without such a restriction ("only if …" is a condition, not one).
    pub only: Option<(String, HashSet<String>)>,
    /// For a stated schedule line without a modal ("Driver timesheets are kept for two
    /// years"), the terms of what it is about: a line of a schedule binds only its own subject.
    /// Empty for a rule with a modal.
    pub subject: HashSet<String>,
    /// A line that states, without a modal, a measure of what is done ("Line managers review
    /// access rights every quarter", see `stated_measure`), an order ("Due diligence is
    /// completed before any contract is signed") or a restriction ("Commissions are paid only
    /// into …"), or a permission restricted by "only": it binds that measure, order or
    /// restriction, never a statement's polarity (what else it says may be a condition or an
    /// aside).
    pub without_polarity: bool,
    /// What a prohibition requires before its act, as terms ("must not leave the harbour
    /// *without a signed float plan*"): the act done without it breaks the rule, done with it
    /// keeps it. Empty when the rule names no such thing.
    pub precondition: HashSet<String>,
    /// The event until which a prohibition lasts, as terms ("must not leave the harbour *until
    /// the pilot boards*"): it forbids the act only before that event, so a statement that
    /// does the act without naming the event ("boats leave at dawn") is not held to it.
    /// Empty when the rule names no such event.
    pub until: HashSet<String>,
    /// The condition under which a prohibition does not hold, as terms ("must not moor at the
    /// fuel pontoon *unless the harbour master agrees*"): a statement that does the act only
    /// on that condition ("only when the harbour master has agreed") keeps the rule. Empty
    /// when the rule makes no such exception.
    pub unless: HashSet<String>,
    /// The words a prohibition forbids by quoting them ("Never use “sharp” in the package
    /// name", "must not be marked 'final'"), lower case: a text that writes one breaks it.
    pub forbidden_words: Vec<String>,
    /// What a rule requires to be kept apart, as terms ("on *different hooks*", "by *another
    /// person*", "a *separate account*"; see [`kept_apart`]): a text that uses the same one
    /// breaks it. Empty for a rule that requires nothing apart.
    pub apart: HashSet<String>,
}

/// A lower or upper bound on a quantity ("at least three years", "within 30 days").
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The bound as written.
    pub text: String,
    /// `true`: the value must be at least this; `false`: at most this.
    pub minimum: bool,
    /// Value in the dimension's base unit.
    pub value: f64,
    /// Dimension.
    pub dimension: Dimension,
    /// The most that a prohibition of going beyond it allows ("must not weigh more than 30
    /// kilograms"), or a deadline that is the condition the clause names ("if you fail to pay
    /// within 14 days", "continues if you pay within 14 days", see `deadline_is_condition`): it
    /// holds whatever the clause's polarity.
    pub cap: bool,
}

/// What a quantity measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dimension {
    /// Durations, in days.
    Time,
    /// Percentages.
    Percent,
    /// Money (currency not converted).
    Money,
    /// How often something recurs: the days between two occurrences ("each quarter" 91.3,
    /// "twice a year" 182.5, "weekly" 7).
    Interval,
    /// A count of a named thing ("at least 14 characters", "no more than 3 attempts"), keyed
    /// by the thing's stem: counts of different things never compare.
    Count(String),
    /// How long before an event something is done, in days ("one week before the release"):
    /// a notice period, which compares only with another (never with how long a thing lasts).
    Lead,
    /// How many of a named kind a body is made of ("consists of five members", "has seven
    /// members"), keyed by the kind's stem. A clause's size compares only with a size the
    /// statement gives, never with a count of members doing something ("two members are
    /// independent"); a statement's size still meets a clause's plain count ([`comparable`]).
    Size(String),
}

/// Whether a statement's quantity of dimension `quantity` can be held against a clause's bound
/// of dimension `bound`: the same dimension, or a size the statement gives against a plain
/// count of the same kind ("has ten characters" against "at least 14 characters").
pub fn comparable(quantity: &Dimension, bound: &Dimension) -> bool {
    quantity == bound
        || matches!((quantity, bound), (Dimension::Size(q), Dimension::Count(b)) if q == b)
}

/// A statement of the audited text.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The sentence, verbatim.
    pub text: String,
    /// Its parts (split at "; ", ", but ", ", and "), each with terms and polarity.
    pub parts: Vec<Part>,
    /// Terms of the whole sentence.
    pub terms: HashSet<String>,
    /// Paths it names.
    pub paths: Vec<String>,
    /// Names it gives things ("is named harbour-tide"; see [`names::given`]).
    pub names: Vec<String>,
    /// Labelled values it names.
    pub values: Vec<(String, String)>,
    /// Quantities it names, as (text, value, dimension).
    pub quantities: Vec<(String, f64, Dimension)>,
    /// Thresholds from which it applies what it says ("only for claims above 50 euros").
    pub thresholds: Vec<(String, f64, Dimension)>,
    /// What it says is the same, as written and as terms ("on the *same hook*", "the *same
    /// person* approves and pays"; see [`kept_apart`]).
    pub same: Vec<(String, HashSet<String>)>,
}

/// A clause of a statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// Its text (lower case).
    pub text: String,
    /// Its terms.
    pub terms: HashSet<String>,
    /// It affirms (`true`) or negates what it says.
    pub positive: bool,
    /// It makes its subject optional ([`OPTIONAL`]): it denies every act a rule requires of it.
    pub optional: bool,
    /// Its only negation is a quantifier ("nothing is stored on the quay", "no boat"): an assurance of
    /// absence, which can meet a prohibition but says nothing against an obligation.
    pub quantifier_only: bool,
    /// Terms of what a quantifier negation denies ("no backup is taken" → backup): against a
    /// rule that requires that very thing it is a failure to act, not an assurance of absence.
    pub quantified: HashSet<String>,
    /// Terms right after its negation ("not marked in the files" → mark, file).
    pub negated: HashSet<String>,
    /// Terms of what it says of any or every one of a kind ("to any account the agent names"
    /// → account): the slot a rule's "only" restricts (see [`Clause::only`]).
    pub universal: HashSet<String>,
}

/// A conflict a rule detected.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// The rule.
    pub rule: AuditRule,
    /// Severity.
    pub severity: Severity,
    /// One line saying what conflicts.
    pub summary: String,
    /// What to change.
    pub suggestion: String,
}

static PATH: Pattern =
    LazyLock::new(|| regex(r"(?:^|[\s(“\x22'])(/[A-Za-z0-9_.<>*-]+(?:/[A-Za-z0-9_.<>*-]+)*)"));
/// A path joined to a required one by "or" or "and" ("… in ”/srv/charts” or ”/opt/charts”"), at
/// the start of the text after it.
static OR_PATH: Pattern = LazyLock::new(|| {
    regex(
        r#"^["”’']?\s*,?\s*(?:or|and)\s+(?:the\s+)?["“”'‘’]?(/[A-Za-z0-9_.<>*-]+(?:/[A-Za-z0-9_.<>*-]+)*)"#,
    )
});

/// The paths [`OR_PATH`] joins, one after the other, to a required path that `rest` follows.
fn alternative_paths(mut rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(c) = OR_PATH.as_ref().and_then(|re| re.captures(rest)) {
        let (Some(whole), Some(path)) = (c.get(0), c.get(1)) else {
            break;
        };
        out.push(trim_path(path.as_str()));
        rest = &rest[whole.end()..];
    }
    out
}

/// A location a rule requires: a verb of placing after a modal, then a path, which may stand in
/// quotes ("should store charts drawn by hand in ”/srv/charts” or ”/opt/charts”"); the
/// paths it joins by "or" are each allowed (see [`clause`]).
static REQUIRED_PATH: Pattern = LazyLock::new(|| {
    regex(
        r#"(?i)\b(?:must|shall|should|is to|are to)\s+(?:only\s+)?(?:be\s+)?(?:install|installed|place|placed|located|store|stored|keep|kept|put|write|written|found|create|created)\s+(?:(?:[a-z-]+\s+){0,6}?)(?:in|into|under|to|at|below)\s+(?:the\s+)?(?:directory\s+|hierarchy\s+)?["“”'‘’]?(/[A-Za-z0-9_.<>*-]+(?:/[A-Za-z0-9_.<>*-]+)*)"#,
    )
});
static LABELLED: Pattern = LazyLock::new(|| regex(r"(?i)\b(mode|umask|port)\s+([0-9]{2,5})\b"));
/// A field set to a one-word value, as control files and settings write it ("Architecture:
/// all", "Priority: optional", "PermitRootLogin: no"): a capitalised name, a colon and one
/// word that ends at a quote or a punctuation mark ("Note: if the …" sets nothing).
static FIELD: Pattern = LazyLock::new(|| {
    regex(r#"\b([A-Z][A-Za-z-]{2,}):[ \t]+([A-Za-z0-9][\w.+-]*?)(?:["”'’),;]|\.?\s*$|\.\s)"#)
});
/// The word after a number that names what is counted ("14 characters", "3 attempts"), when
/// it is no unit of time, money or per cent (see `measure`).
const COUNTED: &str = r"[kmgt]i?b\b|[a-z]{3,}\b";
/// A numeric bound: "at least 30 days", "no more than EUR 500", "within two weeks", "no later
/// than 30 days after …", "at least a year" (an article and a unit of time: one of it).
static BOUND: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b((?:a\s+)?(?:minimum|maximum)\s+(?:[a-z-]+\s+){{0,4}}?of|at\s+least|no\s+(?:less|fewer)\s+than|not\s+(?:less|fewer)\s+than|a\s+minimum\s+of|minimum\s+of|within|no\s+later\s+than|not\s+later\s+than|no\s+more\s+than|not\s+more\s+than|at\s+most|a\s+maximum\s+of|maximum\s+of|not\s+(?:to\s+)?exceed(?:ing)?|up\s+to|limited\s+to|capped\s+at|(?:less|smaller|fewer)\s+than)\s+
        (?:(?:about|approximately|around|roughly)\s+)?
        ((?:{CURRENCIES})\s?)?
        (\d+(?:[.,]\d+)?|{numbers}|an?\s+(?:{TIME_UNITS})\b)
        \s*({PERCENT}|{TIME_UNITS}|{CURRENCY_WORDS}|{COUNTED})?",
        numbers = lexicon::number_words(),
    ))
});
/// A time given for an act, a deadline in other words: "has 14 days to reply", "are given
/// ten days in which to object". Its groups are [`BOUND`]'s (no currency).
static TIME_TO: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b(has|have|gets?|is\s+given|are\s+given)\s+()?(\d+(?:[.,]\d+)?|{numbers})\s*({TIME_UNITS})\s+(?:in\s+which\s+)?to\b",
        numbers = lexicon::number_words(),
    ))
});
/// A lead time: "one week before the release", "48 hours prior to the meeting" — the least
/// notice the rule gives before its event (a shorter one comes too late; a longer one is
/// more notice). Its groups are [`BOUND`]'s (no keyword, no currency).
static LEAD_TIME: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)()()\b(\d+(?:[.,]\d+)?|{numbers})\s*({TIME_UNITS})\s+(?:before|prior\s+to|ahead\s+of)\b",
        numbers = lexicon::number_words(),
    ))
});
/// A quantity: a number with an optional currency before it and unit after it.
static QUANTITY: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)
        ((?:{CURRENCIES})\s?)?
        \b(\d+(?:[.,]\d+)?|{numbers})\b
        (?:-|\s*)({PERCENT}|{TIME_UNITS}|{CURRENCY_WORDS}|{COUNTED})?",
        numbers = lexicon::number_words(),
    ))
});
/// The words that make a count the size of a body: "consists of", "is composed of", "comprises",
/// "is made up of", "is fixed in size to" (a bound word may follow, [`SIZE_BOUND`]).
const COMPOSED_OF: &str = r"(?:(?:consists?|consisting|composed|made\s+up)\s+of|compris(?:e|es|ing)|fixed\s+(?:in\s+size\s+)?(?:at|to))";
/// The bound words that may stand between a size's verb and a statement's number ("has at
/// least three members").
const SIZE_BOUND: &str = r"(?:(?:at\s+least|at\s+most|not\s+(?:less|more|fewer)\s+than|no\s+(?:less|more|fewer)\s+than|a\s+(?:minimum|maximum)\s+of|up\s+to|exactly|only)\s+)?";
/// A clause's text before a bound ends with a size's verb ([`COMPOSED_OF`]); the bound word is
/// the start of the bound's own match ([`BOUND`]), so none comes between.
static SIZE_BEFORE: Pattern = LazyLock::new(|| regex(&format!(r"(?ix)\b{COMPOSED_OF}\s+$")));
/// A statement's text before a count ends with a size's verb, "has" and "have" included ("The
/// board has seven members").
static SIZE_STATED_BEFORE: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b(?:{COMPOSED_OF}|has|have|having)\s+{SIZE_BOUND}$"
    ))
});
/// A body's size given as a number right after its verb: "is fixed in size to five members",
/// "consists of seven directors" — exact, fewer and more both depart from it. Its groups are
/// [`BOUND`]'s (the verb, no currency, the number, the kind).
static SIZE: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b({COMPOSED_OF})\s+()(?:exactly\s+)?(\d+|{numbers})\s+({COUNTED})",
        numbers = lexicon::number_words(),
    ))
});

/// A record kept for a period: "kept for six years", "retained for a period of 12 months".
static RETAINED_FOR: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b(?:kept|retained|stored|held|archived|preserved)\s+for\s+(?:a\s+(?:minimum\s+)?period\s+of\s+)?(\d+(?:[.,]\d+)?|{numbers})\s*({TIME_UNITS})\b",
        numbers = lexicon::number_words(),
    ))
});

/// A period something lasts or may be done in: "holds office for one year", "for a period of 30
/// days", "during the first week", "the next two days" (no number: one), "a notice period of
/// three months" (a period named by its purpose). Read as a bound by [`periods`]: exact when
/// stated without a modal, at most when allowed ("may … during the first week"), at least when
/// required ("must wait for 24 hours").
static FOR_PERIOD: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b(?:(?:(?:for|during)\s+(?:a\s+period\s+of\s+)?|period\s+of\s+)({numbers}|\d+(?:[.,]\d+)?)|(?:(?:for|during)\s+)?the\s+(?:first|next|following)(?:\s+({numbers}|\d+(?:[.,]\d+)?))?)(?:\s+|-)({TIME_UNITS})\b",
        numbers = lexicon::number_words(),
    ))
});

/// A wait before an act: "moved to the compound after 30 days idle", "may be scrapped after six
/// months ashore" — the act comes no sooner (see [`waits_after`]).
static AFTER_PERIOD: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\bafter\s+({numbers}|\d+(?:[.,]\d+)?)(?:\s+|-)({TIME_UNITS})\b",
        numbers = lexicon::number_words(),
    ))
});

/// An exception that points to other provisions ("except as expressly provided under this
/// License", "except as otherwise set out in clause 4"): what the rule binds is decided there.
static DEFERS: Pattern = LazyLock::new(|| {
    regex(
        r"(?i)\bexcept\s+as\s+(?:(?:expressly|otherwise|specifically|explicitly)\s+)*(?:provided|permitted|set\s+(?:out|forth)|stated|specified|described|allowed|authori[sz]ed|agreed|noted|indicated)\b",
    )
});

/// A subject that "no" quantifies, before its modal: "after the deadline no more bids may be
/// placed", "no further changes shall be made" — a prohibition wherever it stands.
static NO_SUBJECT: Pattern = LazyLock::new(|| {
    regex(
        r"(?i)\bno\s+(?:more\s+|further\s+|other\s+|new\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:may|shall|must|can)\s",
    )
});

/// The deontic word of a schedule line that states a period without a modal (see
/// [`RETAINED_FOR`], [`FOR_PERIOD`]); such a line is a strong obligation.
const STATED: &str = "(stated)";

/// The deontic word of a line of a standard that states a measure of what is done without a
/// modal (see [`stated_measure`]): its subject and its polarity come before the measure.
const STATED_MEASURE: &str = "(stated measure)";

/// The deontic word of a line that states, without a modal, that one act comes before another
/// ("Due diligence is completed before any contract is signed").
const STATED_ORDER: &str = "(stated order)";

/// The deontic word of a line that restricts, without a modal, what is done ("Commissions are
/// paid only into the agent's own account"; see [`restricted_to`]).
const STATED_RESTRICTION: &str = "(stated restriction)";

/// The deontic word of a permission restricted by "only" ("Refunds may only be paid to the
/// card used"): it binds what it restricts (and its measures), never a statement's polarity.
const MAY_ONLY: &str = " may (only) ";

/// Most words after "only" that name what it restricts to.
const ONLY_WORDS: usize = 8;

/// What "only" restricts a padded lower-case rule to, as written and as terms: the words after
/// it up to a comma or [`ONLY_WORDS`], when they hold a content word and do not open a
/// condition ("only if", "only when": the rule applies then, it names no kind).
fn restricted_to(l: &str) -> Option<(String, HashSet<String>)> {
    let at = l.find(" only ")? + " only ".len();
    let phrase: String = l[at..]
        .split([',', ';', '.'])
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .take(ONLY_WORDS)
        .collect::<Vec<_>>()
        .join(" ");
    let first = phrase.split_whitespace().next().unwrap_or_default();
    if matches!(
        first,
        "if" | "when" | "where" | "after" | "once" | "while" | "for"
    ) {
        return None;
    }
    let t = terms(&phrase);
    (!t.is_empty()).then_some((phrase, t))
}

/// The terms right after "any", "every", "all", "whichever" or "whatever" in a padded
/// lower-case part (two words each): what it says of every one of a kind.
fn universal(padded: &str) -> HashSet<String> {
    let words: Vec<&str> = padded.split_whitespace().collect();
    words
        .iter()
        .enumerate()
        .filter(|(_, w)| matches!(**w, "any" | "every" | "all" | "whichever" | "whatever"))
        .flat_map(|(i, _)| words[i + 1..(i + 3).min(words.len())].iter())
        .flat_map(|w| terms(w))
        .collect()
}

/// A threshold from which a rule applies: "above 25 euros", "more than £150", "exceeding 10
/// days", "longer than 3 days" ("no more than" and "not more than" are bounds, see [`BOUND`];
/// so is a threshold of what a rule forbids, see [`clause`]).
static THRESHOLD: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b(above|over|more\s+than|exceeding|in\s+excess\s+of|(?:greater|bigger|larger|longer|higher|heavier)\s+than)\s+
        ((?:{CURRENCIES})\s?)?
        (\d+(?:[.,]\d+)?|{numbers})\b
        \s*({PERCENT}|{TIME_UNITS}|{CURRENCY_WORDS}|{COUNTED})?",
        numbers = lexicon::number_words(),
    ))
});
/// An exemption up to an amount: "up to 250 pounds", "below 50 euros", "under 3 days", in a
/// statement that then needs no act ("Gifts worth up to 250 pounds need no approval"): the act
/// applies only above it (see `exempt_thresholds`).
static EXEMPT_UP_TO: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)\b(up\s+to|below|under|less\s+than)\s+
        ((?:{CURRENCIES})\s?)?
        (\d+(?:[.,]\d+)?|{numbers})\b
        \s*({PERCENT}|{TIME_UNITS}|{CURRENCY_WORDS})?",
        numbers = lexicon::number_words(),
    ))
});

/// The thresholds a statement sets by exempting what lies below them ([`EXEMPT_UP_TO`]) in a
/// part that negates its act ("… need no approval", "… are not registered"): "up to 250
/// pounds need no approval" applies approval only above 250 pounds.
fn exempt_thresholds(part: &str) -> Vec<(String, f64, Dimension)> {
    if !has_negation(&format!(" {part} ")) {
        return Vec::new();
    }
    let Some(re) = EXEMPT_UP_TO.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(part)
        .filter_map(|c| {
            let (v, d) = measured(&c, 2)?;
            let amount = c.get(0)?.as_str()[c.get(1)?.as_str().len()..].trim();
            Some((format!("above {amount}"), v, d))
        })
        .collect()
}

/// How often something recurs: "once a year", "twice a month", "3 times per week", "once in
/// each contract year", "each quarter", "every second year", "every 6 months", "at the end of
/// each quarter", "monthly". A bare "a day" or "per year" is a rate ("24 hours a day", "4% per
/// year"), not a recurrence.
static PERIOD: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?ix)
        \b(?:(once|twice|(?:\d+|{numbers})\s+times)\s+(?:a|an|per|each|every|in\s+each|in\s+every|in\s+any)|each|every|in\s+each|in\s+every)
        \s+(?:(second|third|fourth|other)\s+)?(?:[a-z-]+\s+)?
        (day|week|month|quarter|year)\b
        |\bevery\s+(\d+|{numbers})\s+(days|weeks|months|quarters|years)\b
        |\b(daily|weekly|monthly|quarterly|annually|yearly)\b",
        numbers = lexicon::number_words(),
    ))
});

/// The days of a unit of a recurrence ("day", "weeks", "month", "quarter", "year", "annual"),
/// 0 for another word.
fn unit_days(unit: &str) -> f64 {
    [
        ("da", 1.0),
        ("week", 7.0),
        ("month", 30.4),
        ("quarter", 91.3),
        ("year", 365.0),
        ("annual", 365.0),
    ]
    .iter()
    .find(|(stem, _)| unit.starts_with(stem))
    .map_or(0.0, |(_, d)| *d)
}

/// A count capped per period: "more than one release per month", "more than two audits a
/// year" — at most that many in each period, so the shortest interval allowed between two
/// (see [`Dimension::Interval`]). The text after a cap ([`THRESHOLD`]) that names the period.
static PER_PERIOD: Pattern =
    LazyLock::new(|| regex(r"(?i)^\s+(?:per|a|an|each|every|in\s+(?:a|any|each))\s+([a-z]+)\b"));

/// The recurrences a text names, as (text, days between two occurrences); see [`PERIOD`].
fn intervals(text_: &str) -> Vec<(String, f64)> {
    let Some(re) = PERIOD.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text_)
        .filter_map(|c| {
            let whole = c.get(0)?.as_str().to_owned();
            let value = if let Some(unit) = c.get(3) {
                let times = match c.get(1).map(|m| m.as_str().to_lowercase()) {
                    None => 1.0,
                    Some(t) if t == "once" => 1.0,
                    Some(t) if t == "twice" => 2.0,
                    Some(t) => lexicon::number(t.split_whitespace().next()?)?,
                };
                // "every second year", "every other month".
                let every = match c.get(2).map(|m| m.as_str().to_lowercase()).as_deref() {
                    Some("third") => 3.0,
                    Some("fourth") => 4.0,
                    Some(_) => 2.0,
                    None => 1.0,
                };
                every * unit_days(&unit.as_str().to_lowercase()) / times.max(1.0)
            } else if let (Some(n), Some(unit)) = (c.get(4), c.get(5)) {
                lexicon::number(n.as_str())? * unit_days(&unit.as_str().to_lowercase())
            } else {
                unit_days(&c.get(6)?.as_str().to_lowercase())
            };
            (value > 0.0).then_some((whole, value))
        })
        .collect()
}

/// An item of a list of conditions: "b) keep a copy …", "(c) Deliver the spare keys …"
/// (a letter or roman numeral closed by a bracket, either case after it), "2. deliver …" (a
/// number or a letter with a stop, lower case after it: "1. Definitions" is a heading).
static LIST_ITEM: Pattern = LazyLock::new(|| {
    regex(r"^(?:\(?(?:[a-h]|[ivx]{1,4})\)\s+[A-Za-z]|\(?(?:[a-h]|[ivx]{1,4}|\d{1,2})[).]\s+[a-z])")
});

/// Markup in a text: an XML/HTML comment, a closing tag, or an opening tag with an attribute.
/// A placeholder in angle brackets ("<MIME>/packages") is not markup.
static MARKUP: Pattern = LazyLock::new(|| {
    regex(r#"<!--|-->|</[A-Za-z][\w:.-]*\s*>|<[A-Za-z][\w:.-]*\s+[\w:.-]+\s*=\s*["']"#)
});

/// A quoted phrase, straight or curly quotes.
static QUOTED: Pattern = LazyLock::new(|| regex(r#""[^"]*"|“[^”]*”"#));

/// A list marker at the start of a line: a bullet, "(a)", "B.", "iv.", "2)".
static MARKER: Pattern =
    LazyLock::new(|| regex(r"^\s*(?:[•\-*]|\(?(?:[a-h]|[A-H]|[ivx]{1,4}|\d{1,2})[).])\s+"));

/// A modal with a comma right after it ("you should, at the very least, …").
static MODAL_COMMA: Pattern = LazyLock::new(|| regex(r"\b(must|shall|should|may),"));

/// An item inside a sentence: "… the following: (a) …", or after a colon or semicolon "…
/// it reinstates: 1. automatically …; or 2. upon …" (a number, a letter or a roman numeral
/// and a full stop); the label is group 1 or 2.
static ITEM: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?:^|[\s:;])(\(?[a-h]\))\s|(?:[:;]|;\s+(?:and|or))\s+({DOT_LABEL_BODY})\s"
    ))
});

/// A label that a full stop ends: "1.", "B.", "iv." (see [`ITEM`], [`DOT_LABEL`]).
const DOT_LABEL_BODY: &str = r"(?:\d{1,2}|[a-hA-H]|[ivx]{1,4})\.";

/// The label of an item that a full stop ends: "1. ", "B. ", "iv. ".
static DOT_LABEL: Pattern = LazyLock::new(|| regex(&format!(r"^{DOT_LABEL_BODY}\s")));

/// A condition that makes an act acceptable or not: "without the owner's consent".
static CONDITION: Pattern = LazyLock::new(|| {
    regex(
        r"with or without|without (?:the )?(?:[\w'’]+ ){0,3}(?:permission|consent|approval|authori[sz]ation|consideration|justification|agreement)",
    )
});

/// Concepts that contracts, licences and policies word in many ways — charging for something,
/// endorsing, changing, including, giving notice, licensing, keeping something as it is,
/// turning something on or off, providing something to someone — so "fee" meets "sell",
/// "licence" meets "licensed", "retain" meets "keep", "offer" meets "supply", "patch" meets
/// "modify", "add" meets "include" and "enabled" meets "disable" (whose removal verb, see
/// `lexicon::REMOVAL_VERBS`, carries the polarity; matched on the lower-case word, before
/// stemming). Families
/// written for single development items (output streams, exit codes, the file-system root,
/// "running", assumptions) were deleted.
fn concept(word: &str) -> Option<&'static str> {
    let any = |prefixes: &[&str]| prefixes.iter().any(|p| word.starts_with(p));
    Some(
        if matches!(
            word,
            "fee" | "fees" | "usd" | "eur" | "gbp" | "paid" | "pay" | "sold"
        ) || any(&[
            "charg", "price", "pricing", "sell", "sale", "payment", "cost",
        ]) {
            "§charge"
        } else if any(&["endors", "promot"]) {
            "§endorse"
        } else if any(&[
            "updat", "chang", "modif", "variab", "vary", "alter", "edit", "patch", "adjust",
        ]) {
            "§change"
        } else if any(&["contain", "includ", "ship", "bundl", "reproduc", "carr"])
            || matches!(word, "add" | "adds" | "added" | "adding")
        {
            "§include"
        } else if any(&["mark", "notice", "label"]) {
            "§notice"
        } else if any(&["licen"]) {
            "§license"
        } else if any(&["enabl", "disabl", "activat", "deactivat"]) {
            "§enable"
        } else if matches!(word, "keep" | "keeps" | "kept" | "keeping")
            || any(&["retain", "preserv", "maintain"])
        {
            "§keep"
        } else {
            return None;
        },
    )
}

/// The verb forms of giving something to someone, a concept read on the words in order (see
/// [`terms`]: "provided that" gives nothing); not the nouns of the party ("provider",
/// "supplier") or "supplement".
const PROVIDING: [&str; 20] = [
    "provide",
    "provides",
    "provided",
    "providing",
    "offer",
    "offers",
    "offered",
    "offering",
    "supply",
    "supplies",
    "supplied",
    "supplying",
    "furnish",
    "furnishes",
    "furnished",
    "furnishing",
    "deliver",
    "delivers",
    "delivered",
    "delivering",
];

/// Words after which "provided" or "providing" opens a condition ("provided that …",
/// "provided it is cured …"), not an act of giving.
const CONDITION_OPENERS: [&str; 17] = [
    "that", "it", "they", "such", "you", "he", "she", "we", "the", "this", "these", "those",
    "your", "all", "any", "each", "every",
];

/// Words after which a governed part names an act: "be copied", "nor be taken", "not
/// transfer", "only use", "always wear". Not "to", "and" or "or", which as often join nouns
/// ("lend paintings to galleries", "paper and email").
const ACT_OPENERS: [&str; 7] = ["be", "not", "never", "neither", "nor", "only", "always"];

/// The acts a governed part names (see [`Clause::act`]): each word after an [`ACT_OPENERS`]
/// word, else its first content word, negations and verbs of avoiding aside, with their
/// concepts.
fn governed_act(governed: &str) -> HashSet<String> {
    let words: Vec<String> = governed
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let verb_like = |w: &str| {
        !lexicon::is_negation(w)
            && !lexicon::is_avoidance(w)
            && !ACT_OPENERS.contains(&w)
            && !text::content_terms(w).is_empty()
    };
    // A word in -ly may be an adverb before the verb ("must not *simultaneously serve*",
    // "shall *promptly notify*"): the word after it names the act too.
    let act_at = |out: &mut HashSet<String>, i: usize| {
        out.extend(terms(&words[i]));
        if words[i].ends_with("ly")
            && let Some(next) = words.get(i + 1).filter(|w| verb_like(w))
        {
            out.extend(terms(next));
        }
    };
    let mut out = HashSet::new();
    for i in 1..words.len() {
        if ACT_OPENERS.contains(&words[i - 1].as_str()) && verb_like(&words[i]) {
            act_at(&mut out, i);
        }
    }
    // Without such a word the act comes first ("shall not *transfer* …"); with one, what comes
    // first may be a subject ("provided that the *licence* … does not *attempt* to limit").
    if out.is_empty()
        && let Some(first) = words.iter().position(|w| verb_like(w))
    {
        act_at(&mut out, first);
    }
    // "be given the ability to opt out", "provide the option to back up": what the capability
    // is for is the act the rule requires as well.
    for i in 0..words.len().saturating_sub(2) {
        if lexicon::CAPABILITY_NOUNS.contains(&words[i].as_str())
            && words[i + 1] == "to"
            && verb_like(&words[i + 2])
        {
            act_at(&mut out, i + 2);
        }
    }
    out
}

/// Stems of a text with their concepts added (a path counts once, not once per component).
pub fn terms(text_: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let all = text::content_terms(text_);
    let paths: Vec<&String> = all.iter().filter(|t| t.starts_with('/')).collect();
    for t in &all {
        if !t.starts_with('/') && paths.iter().any(|p| p.split('/').any(|c| c == t)) {
            continue;
        }
        let s = text::stem(t);
        if let Some(c) = concept(t) {
            out.insert(c.to_owned());
        }
        out.insert(s);
        // A compound is written with or without its hyphen ("back-up" and "backup", "e-mail"
        // and "email"): the solid spelling stands for it too.
        if t.contains('-') {
            out.insert(text::stem(&t.replace('-', "")));
        }
    }
    // Giving is read on the words in order: "provided" that opens a condition gives nothing.
    let words: Vec<String> = text_
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let gives = words.iter().enumerate().any(|(i, w)| {
        PROVIDING.contains(&w.as_str())
            && !(matches!(w.as_str(), "provided" | "providing")
                && words
                    .get(i + 1)
                    .is_some_and(|n| CONDITION_OPENERS.contains(&n.as_str())))
    });
    if gives {
        out.insert("§provide".to_owned());
    }
    out
}

/// A number written in words and again in digits ("thirty (30) days", "ninety (90) days"), as
/// contracts and licences write them: the digits in parentheses are read as part of the word,
/// so that the unit after them still belongs to the number.
static DOUBLED: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b({numbers})\s*\(\d+(?:[.,]\d+)?\)",
        numbers = lexicon::number_words(),
    ))
});

/// The text with every number written twice read once ([`DOUBLED`]): "for up to ninety (90)
/// days" is "for up to ninety days".
fn undoubled(text_: &str) -> String {
    match DOUBLED.as_ref() {
        Some(re) => re.replace_all(text_, "$1").into_owned(),
        None => text_.to_owned(),
    }
}

fn lower(text_: &str) -> String {
    let mut l = format!(
        " {} ",
        text_
            .replace(['’', '‘'], "'")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    );
    for (idiom, meaning) in lexicon::AFFIRMING_IDIOMS {
        l = l.replace(idiom, meaning);
    }
    l
}

/// Quoted material ("frobnicate: Cannot open file.") is an example, not a statement: its
/// words do not negate anything.
fn unquote(l: &str) -> String {
    match QUOTED.as_ref() {
        Some(re) => re.replace_all(l, " ").into_owned(),
        None => l.to_owned(),
    }
}

/// The first clause of a governed text: a subordinate clause ("; they are significant since
/// … don't continue …") says why, not what is required, and a clause after a comma with a
/// modal of its own ("must not be left on the quay, they should be stowed …") is another
/// rule, which this one's deontic does not govern.
fn first_clause(governed: &str) -> &str {
    let cut = [
        "; ",
        " because ",
        " since ",
        " so that ",
        ", which ",
        ", though",
        " unless ",
        ": ",
        " in order to ",
        " (",
    ]
    .iter()
    .filter_map(|c| governed.find(c))
    .chain(
        NEXT_RULE
            .as_ref()
            .and_then(|re| re.find(governed))
            .map(|m| m.start()),
    )
    .min()
    .unwrap_or(governed.len());
    &governed[..cut]
}

/// A comma, then up to three words and a modal: a clause with a deontic of its own (see
/// [`first_clause`]).
static NEXT_RULE: Pattern = LazyLock::new(|| {
    regex(r"(?i),\s+(?:[a-z’'-]+\s+){0,3}(?:must|shall|should|may|will|can|cannot)\b")
});

/// Leading list markers ("3. ", "b) ", "(ii) ", "• ") are layout, not words.
fn strip_marker(sentence: &str) -> &str {
    match MARKER.as_ref().and_then(|re| re.find(sentence)) {
        Some(m) => &sentence[m.end()..],
        None => sentence,
    }
}

/// Two rules joined in one sentence: "Staff must not open it, and must not switch it off"
/// ("and" and a new modal), "return the data and then delete it" ("and then": a second act
/// under the same modal).
static CONJOINED_RULE: Pattern = LazyLock::new(|| {
    regex(r"(?i),?\s+and\s+(?:(?:also|then)\s+)?(must|shall|should|may)\b|,?\s+and\s+then\s+")
});

/// The modal of a rule: what a second act joined by "and then" inherits.
static RULE_MODAL: Pattern =
    LazyLock::new(|| regex(r"(?i)\b(?:must|shall|should|may|is to|are to)(?:\s+not)?\b"));

/// One rule of a sentence (see [`rule_pieces`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulePiece<'a> {
    /// Byte offset of the piece in the sentence.
    pub offset: usize,
    /// The piece, verbatim (what is quoted).
    pub text: &'a str,
    /// What is read as the rule: the piece, or for a second act the subject and modal of the
    /// first before it ("the Supplier shall" + "delete it").
    pub reading: String,
}

/// The rules of a sentence: the items of a list ([`list_items`]), and within each, the rules
/// joined by "and" and a new modal or by "and then" ([`CONJOINED_RULE`]), which can bind in
/// opposite ways ("must not investigate …, and must not switch off …": one forbids an act,
/// the other its undoing; "return the data … and then delete it": a text that returns the data
/// has not deleted it, but has not done what the rule forbids either). A piece without a modal
/// of its own is read with the first piece's subject and modal.
pub fn rule_pieces(sentence: &str) -> Vec<RulePiece<'_>> {
    let mut out = Vec::new();
    let items = list_items(sentence);
    // The introduction of the sentence's list, whose modal binds an item without one
    // ([`framed_item`]).
    let intro = match items.as_slice() {
        [(0, intro), _, ..] => Some(*intro),
        _ => None,
    };
    for (offset, item) in items {
        let mut from = 0;
        let mut pieces: Vec<(usize, &str)> = Vec::new();
        if let Some(re) = CONJOINED_RULE.as_ref() {
            for c in re.captures_iter(item) {
                let Some(whole) = c.get(0) else {
                    continue;
                };
                let head = item[from..whole.start()].trim_end();
                if head.split_whitespace().count() >= 3 {
                    pieces.push((from, head));
                    from = c.get(1).map_or(whole.end(), |m| m.start());
                }
            }
        }
        pieces.push((from, &item[from..]));
        // The subject and modal of the first piece: "On termination, the Supplier shall".
        let lead = pieces.first().and_then(|(_, first)| {
            RULE_MODAL
                .as_ref()?
                .find(first)
                .map(|m| first[..m.end()].to_owned())
        });
        for (i, (at, text)) in pieces.into_iter().enumerate() {
            let own_modal = RULE_MODAL.as_ref().is_some_and(|re| re.is_match(text));
            let reading = match &lead {
                Some(lead) if i > 0 && !own_modal => format!("{lead} {text}"),
                // An item a full stop labels ("1. …", "iv. …") binds only through its
                // introduction's modal or its own words: its label is layout, and a list of
                // things ("the following: i. the right to …; ii. …") is no list of acts.
                _ if i == 0 && offset > 0 => {
                    intro.and_then(|l| framed_item(l, text)).unwrap_or_else(|| {
                        let dotted = DOT_LABEL.as_ref().is_some_and(|re| re.is_match(text));
                        if dotted { strip_marker(text) } else { text }.to_owned()
                    })
                }
                _ => text.to_owned(),
            };
            out.extend(excepted(RulePiece {
                offset: offset + at,
                text,
                reading,
            }));
        }
    }
    out
}

/// An exception a rule makes in a phrase of its own: ", but never on a race day", " but not
/// with visitors" — "but", a negation and a preposition.
static EXCEPTED: Pattern = LazyLock::new(|| regex(r"(?i),?\s+but\s+(never|not)\s+([a-z]+)\s"));

/// A rule and the exception it makes ([`EXCEPTED`]) as two rules: "Hulls should be washed on
/// every weekday, but never on a race day" is "Hulls should be washed on every weekday" and
/// "Hulls should not be washed on a race day" — the rule's subject and modal, negated, with its
/// verb up to its first phrase, and the exception's phrase in place of that phrase. A text that
/// does on race days what the exception forbids breaks the rule, though it also washes hulls.
/// The piece as it is when it makes no such exception, or when its rule has no positive modal
/// or its verb no phrase to put the exception's in place of.
fn excepted(piece: RulePiece<'_>) -> Vec<RulePiece<'_>> {
    let split = || {
        let re = EXCEPTED.as_ref()?;
        let in_text = re.captures(piece.text)?;
        let in_reading = re.captures(&piece.reading)?;
        let phrase = in_reading.get(2)?;
        if !lexicon::PREPOSITIONS.contains(&phrase.as_str().to_lowercase().as_str()) {
            return None;
        }
        let head = &piece.reading[..in_reading.get(0)?.start()];
        let modal = RULE_MODAL.as_ref()?.find(head)?;
        if modal.as_str().contains(char::is_whitespace) {
            return None;
        }
        let verb = &head[modal.end()..];
        let verb_end = lexicon::PREPOSITIONS
            .iter()
            .filter_map(|p| verb.find(&format!(" {p} ")))
            .min()?;
        let tail = in_text.get(1)?.start();
        Some(vec![
            RulePiece {
                offset: piece.offset,
                text: &piece.text[..in_text.get(0)?.start()],
                reading: head.to_owned(),
            },
            RulePiece {
                offset: piece.offset + tail,
                text: &piece.text[tail..],
                reading: format!(
                    "{} not{} {}",
                    &head[..modal.end()],
                    &verb[..verb_end],
                    &piece.reading[phrase.start()..]
                ),
            },
        ])
    };
    split().unwrap_or_else(|| vec![piece])
}

/// An item of a list read as a rule of its own: its pronoun subject ("- It must not exceed
/// …", "- They shall …") stands for what the line introducing the list names, which the
/// caller lends the clause's terms (see `action::audit`); read as "The item …" it binds.
pub fn item_reading(reading: &str) -> String {
    let body = strip_marker(reading);
    let lower = body.to_lowercase();
    for (pronoun, noun) in [("it ", "The item "), ("they ", "The items ")] {
        if lower.starts_with(pronoun) {
            return format!("{noun}{}", &body[pronoun.len()..]);
        }
    }
    reading.to_owned()
}

/// An item of a list read under the modal its lead ends with ("1. If You share it, You
/// must:" and "B. indicate any change; and" read as "If You share it, You must indicate any
/// change; and"): an item without a modal of its own is an act the lead binds. `None` when
/// the lead does not end with a modal and ":" or the item has a modal of its own.
pub fn framed_item(lead: &str, item: &str) -> Option<String> {
    let frame = strip_marker(lead.trim_end().strip_suffix(':')?.trim_end());
    let re = RULE_MODAL.as_ref()?;
    if re.is_match(item) {
        return None;
    }
    let binds = re
        .find_iter(frame)
        .last()
        .is_some_and(|m| m.end() == frame.len());
    if binds {
        return Some(format!("{frame} {}", strip_marker(item)));
    }
    instruction(frame, strip_marker(item))
}

/// A lead that requires something be done ("this is what should be done before removing
/// it:", "the following steps must be taken:"): the modal and a passive "be …".
static REQUIRES_DONE: Pattern = LazyLock::new(|| {
    regex(r"(?i)\b(must|shall|should|(?:has|have|need|needs) to)\s+be\s+[a-z]+(?:ed|en|ne)\b")
});

/// An item of a procedure read as the reader's duty: under a lead that requires something be
/// done ([`REQUIRES_DONE`]), an item that opens with its verb ("Wait till …", "Mention the
/// removal …") is an instruction: "You should wait till …". An item that opens with an
/// article, a pronoun or a preposition, or with a name or a path ("pyproject.toml: …"), is a
/// thing, not an act.
fn instruction(frame: &str, item: &str) -> Option<String> {
    let modal = REQUIRES_DONE.as_ref()?.captures(frame)?.get(1)?.as_str();
    let first = item.split_whitespace().next()?;
    let word = first.trim_end_matches([',', ';']);
    let lower = word.to_lowercase();
    let opens_with_verb = word.chars().next().is_some_and(char::is_uppercase)
        && word.chars().skip(1).all(|c| c.is_ascii_lowercase())
        && word.len() > 1
        && !lexicon::NOT_VERBS.contains(&lower.as_str())
        && !lexicon::ends_like_plural(&lower)
        && !lexicon::PREPOSITIONS.contains(&lower.as_str());
    opens_with_verb.then(|| {
        format!(
            "You {} {lower}{}",
            modal.to_lowercase(),
            &item[word.len()..]
        )
    })
}

/// One case of a rule that sets one measure per case (see [`cases`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The case read as a rule: the sentence up to the first case's measure (its subject and
    /// act) and then the case's own words.
    pub reading: String,
    /// Terms of the case's own words: what tells a statement's case from the others'.
    pub own: HashSet<String>,
}

/// The cases of a rule that sets a measure of one kind per case, in coordinated parts
/// ("review access to their systems every quarter, and access to privileged accounts every
/// month"; "critical updates within fourteen days, other updates within sixty days"): the
/// parts split at the last ", " or "; " before each measure after the first, each part holding
/// one measure. Empty when the sentence sets fewer than two measures of a kind, or they are not
/// apart by such a separator. Read as one line, such a rule binds only by its loosest measure
/// ([`loosest`]); a statement whose words meet one case better than every other is held to
/// that case's own.
pub fn cases(sentence: &str) -> Vec<Case> {
    // Each measure's span, and whether it is a recurrence (else a bound).
    let mut measures: Vec<(usize, usize, bool)> = Vec::new();
    if let Some(re) = BOUND.as_ref() {
        for c in re.captures_iter(sentence) {
            if let (Some(m), Some(_)) = (c.get(0), measured(&c, 2)) {
                measures.push((m.start(), m.end(), false));
            }
        }
    }
    if let Some(re) = PERIOD.as_ref() {
        for m in re.find_iter(sentence) {
            measures.push((m.start(), m.end(), true));
        }
    }
    measures.sort_unstable_by_key(|m| m.0);
    if measures.len() < 2 || measures.iter().any(|m| m.2 != measures[0].2) {
        return Vec::new();
    }
    let mut splits = Vec::new();
    for w in measures.windows(2) {
        let between = &sentence[w[0].1..w[1].0];
        let Some(at) = [", ", "; "]
            .iter()
            .filter_map(|sep| between.rfind(sep).map(|i| i + sep.len()))
            .max()
        else {
            return Vec::new();
        };
        splits.push(w[0].1 + at);
    }
    let lead = &sentence[..measures[0].0];
    let mut out = Vec::new();
    let mut from = 0;
    for (k, &to) in splits.iter().chain([sentence.len()].iter()).enumerate() {
        let part = sentence[from..to].trim_end_matches([',', ';', ' ', '.']);
        let own_words = part.trim_start_matches("and ").trim_start_matches("or ");
        // A case is told by its words, not by its measure (which a statement restates).
        let (m0, m1, _) = measures[k];
        let mut own = terms(own_words);
        for t in terms(&sentence[m0..m1]) {
            own.remove(&t);
        }
        out.push(Case {
            reading: if k == 0 {
                part.to_owned()
            } else {
                format!("{}{own_words}", lead)
            },
            own,
        });
        from = to;
    }
    // Only what sets a case apart from the others tells it: words every case shares ("access",
    // "updates") fit a statement of any case alike.
    let shared: Vec<HashSet<String>> = out
        .iter()
        .enumerate()
        .map(|(k, c)| {
            c.own
                .iter()
                .filter(|t| {
                    out.iter()
                        .enumerate()
                        .any(|(j, o)| j != k && o.own.contains(*t))
                })
                .cloned()
                .collect()
        })
        .collect();
    for (c, common) in out.iter_mut().zip(shared) {
        c.own.retain(|t| !common.contains(t));
    }
    out
}

/// The case of a rule (see [`cases`]) a statement with `terms` is in, given each case's own
/// terms in order: a later case names what sets it apart from the first ("…, and the
/// breakwater every year"), so the statement is in the later case whose own words it shares
/// most (a tie between them: none), else in the first case if it shares [`FIRST_CASE_WORDS`]
/// of its words; `None` when no case can be told, and the whole rule binds by its loosest.
pub fn case_of(terms: &HashSet<String>, owns: &[&HashSet<String>]) -> Option<usize> {
    let shares: Vec<usize> = owns.iter().map(|o| shared(terms, o)).collect();
    let best = shares.iter().skip(1).copied().max().unwrap_or(0);
    if best > 0 {
        let mut at = (1..shares.len()).filter(|&k| shares[k] == best);
        return match (at.next(), at.next()) {
            (Some(k), None) => Some(k),
            _ => None,
        };
    }
    (shares.first().copied().unwrap_or(0) >= FIRST_CASE_WORDS).then_some(0)
}

/// Words of the first case a statement must share to be in it: the first case's words hold
/// the rule's act ("are installed", "inspects"), which a statement of any case restates, so
/// one shared word is the act alone ("Routine updates are installed within 30 days" is not in
/// "critical updates … within fourteen days"); two are the act and what sets the case apart.
/// More would miss statements that name their case and leave the act implied.
const FIRST_CASE_WORDS: usize = 2;

/// Splits a sentence holding a list ("… the following: a) cause …; and b) cause …") into its
/// introduction and items, each with its byte offset in the sentence.
pub fn list_items(sentence: &str) -> Vec<(usize, &str)> {
    let Some(re) = ITEM.as_ref() else {
        return vec![(0, sentence)];
    };
    let mut starts: Vec<usize> = re
        .captures_iter(sentence)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)).map(|m| m.start()))
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let mut out = Vec::new();
    for (i, &a) in starts.iter().enumerate() {
        let b = starts.get(i + 1).copied().unwrap_or(sentence.len());
        let piece = sentence[a..b].trim_end();
        if piece.split_whitespace().count() >= 3 {
            out.push((a, piece));
        }
    }
    out
}

/// Conditions such as "without prior written permission" restrict a rule; they do not negate
/// its content.
fn strip_conditions(lower_text: &str) -> String {
    match CONDITION.as_ref() {
        Some(re) => re.replace_all(lower_text, " ").into_owned(),
        None => lower_text.to_owned(),
    }
}

/// Negations as they are matched inside a padded lower-case text: the shared negation words,
/// the contraction "n't", and the substitution "instead of" (doing one thing instead of another
/// negates the other).
static NEGATIONS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut all: Vec<String> = lexicon::NEGATIONS
        .iter()
        .map(|w| format!(" {w} "))
        .collect();
    all.extend([
        "n't ".to_owned(),
        " no longer ".to_owned(),
        " instead of ".to_owned(),
    ]);
    all
});

/// A statement that declares a thing or an act optional ("Life jackets are optional on the
/// pontoon") denies that it is required: against a rule that requires it, it is a failure.
static OPTIONAL: Pattern = LazyLock::new(|| {
    regex(
        r"\b(?:is|are|remains?|stays?|becomes?)\s+(?:entirely\s+|purely\s+)?(?:optional|voluntary)\b",
    )
});

fn has_negation(l: &str) -> bool {
    first_negation(l).is_some()
}

/// Words that open a clause framing the main one: a condition, a time, a purpose or a reason
/// ("if the console is not restricted", "so that no su is needed", "to make sure that this
/// cannot happen"). What such a clause negates is its own business, not the rule's or the
/// statement's.
const SUBORDINATORS: [&str; 14] = [
    " if ",
    " where ",
    " in cases where ",
    " when ",
    " whenever ",
    " unless ",
    " once ",
    " before ",
    " after ",
    " so that ",
    " because ",
    " since ",
    " in order to ",
    " to make sure ",
];

/// Where the main clause of a padded lower-case text begins: after the comma that closes a
/// framing clause opening the text (a [`SUBORDINATORS`] word or an infinitive of purpose,
/// "To keep …, "), else at 0.
fn frame_end(l: &str) -> usize {
    let opens = SUBORDINATORS.iter().any(|s| l.starts_with(s)) || l.starts_with(" to ");
    match l.find(", ") {
        Some(comma) if opens => comma + 1,
        _ => 0,
    }
}

/// The main clause of a padded lower-case text: a framing clause that opens it, up to its
/// comma, is dropped ("To make sure that this cannot happen, you should …"), and the text
/// ends where a framing clause begins ("… disable it if access is not restricted").
fn main_clause(l: &str) -> String {
    main_clause_until(l, &[])
}

/// [`main_clause`], also cut at `breaks`.
fn main_clause_until(l: &str, breaks: &[&str]) -> String {
    let rest = &l[frame_end(l)..];
    let cut = SUBORDINATORS
        .iter()
        .chain(breaks)
        .filter_map(|s| rest.find(s))
        .filter(|&i| i > 0)
        .min()
        .unwrap_or(rest.len());
    format!("{} ", &rest[..cut])
}

/// Where what a rule requires ends besides a framing clause: a concession ("…, but it need
/// not be if …"), a clause after a semicolon ("…; nevertheless, take care not to …") and a
/// purpose set off by a comma ("…, to spare users … and prevent …") say something of their own,
/// and so does the alternative a rule rules out ("be filed with the clerk instead of being
/// sent by post"): it negates the alternative, not what the rule requires. A purpose of
/// avoiding something needs no comma to be one ("stow fuel cans in the locker to avoid
/// spills", "take steps to prevent theft"): the rule requires the act, and what it avoids is
/// its reason. An absence joined to what is required ("the consent of two trustees and no
/// objection from the treasurer") is a second condition: it does not negate the first.
const RULE_BREAKS: [&str; 10] = [
    " and no ",
    ", no ",
    ", but ",
    "; ",
    ", to ",
    ", so as to ",
    ", in order to ",
    " instead of ",
    " to avoid ",
    " to prevent ",
];

/// A rule's governed text without its content and relative clauses, each up to its comma or
/// the end ("state that the package is not part of …", "any work that you distribute, … to
/// be licensed at no charge"): what they negate is theirs, not the rule's. (A statement keeps
/// its "that": "we ensure that nothing is kept" says what it does.)
fn without_that_clauses(l: &str) -> String {
    let mut out = l.to_owned();
    while let Some(i) = out.find(" that ") {
        let end = out[i..].find(", ").map_or(out.len(), |j| i + j + 1);
        out.replace_range(i..end, "");
    }
    out
}

fn has_removal(l: &str) -> bool {
    first_word(l, lexicon::is_removal).is_some()
}

/// Where the first word of `l` for which `is` holds starts.
fn first_word(l: &str, is: impl Fn(&str) -> bool) -> Option<usize> {
    let mut start = None;
    for (i, c) in l.char_indices().chain([(l.len(), ' ')]) {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take()
            && is(&l[s..i])
        {
            return Some(s);
        }
    }
    None
}

/// Where the first negation of `l` starts: a phrase of [`NEGATIONS`] or an avoidance verb
/// (`lexicon::is_avoidance`).
fn first_negation(l: &str) -> Option<usize> {
    NEGATIONS
        .iter()
        .filter_map(|n| l.find(n.as_str()))
        .chain(first_word(l, lexicon::is_avoidance))
        .min()
}

/// Whether a text (a statement part or a clause's governed content) affirms what it says:
/// a negation or a removal verb negates; both together affirm when the negation comes first
/// ("never discard", "nothing is removed") — one after the removal belongs to what follows it
/// ("disable the console if access to it is not restricted").
fn positive(l: &str) -> bool {
    // "… shall consist of not less than three members": the "not" of a bound negates nothing.
    let mut l = l.to_owned();
    for bound in lexicon::NEGATED_BOUNDS {
        l = l.replace(&format!(" {bound} "), " ");
    }
    match (first_negation(&l), first_word(&l, lexicon::is_removal)) {
        (Some(negation), Some(removal)) => negation < removal,
        (negation, removal) => negation.is_none() && removal.is_none(),
    }
}

/// Whether a statement part (lower case) does one of `act` before its first negation, and that
/// negation is "without": "boats are launched from the slipway without a permit" launches them
/// (the "without" says what is missing, not that the act is not done). Held against a
/// prohibition of the act only: against an obligation, what the statement goes without may be
/// what the rule requires ("hulls painted without antifouling" against "must be painted with
/// antifouling").
fn does_before_without(part: &str, act: &HashSet<String>) -> bool {
    let padded = format!(" {part} ");
    first_negation(&padded).is_some_and(|at| {
        padded[at..].starts_with(" without ")
            && terms(&padded[..at]).iter().any(|t| act.contains(t))
    })
}

/// Whether a padded lower-case rule opens with a demonstrative standing alone as its subject
/// ("This should not be included …"): what it points to is in another sentence. A
/// demonstrative with its noun ("This file must neither be compressed …") names the subject.
fn pronoun_subject(l: &str) -> bool {
    let mut words = l.split_whitespace();
    let first = words.next().unwrap_or_default();
    let second = words.next().unwrap_or_default();
    matches!(first, "this" | "these" | "that" | "those" | "such")
        && (second.is_empty()
            || lexicon::MODALS
                .iter()
                .any(|m| m.split(' ').next() == Some(second))
            || matches!(
                second,
                "is" | "are" | "was" | "were" | "will" | "can" | "does" | "do" | "has" | "have"
            ))
}

/// Reads a sentence as a rule, or `None` when it binds nothing.
pub fn clause(sentence: &str) -> Option<Clause> {
    let sentence = &undoubled(sentence);
    // Markup or code shown as an example ("<!-- DO NOT EDIT! -->", "<glob pattern=…/>") states
    // no rule, whatever words it holds.
    if MARKUP.as_ref().is_some_and(|re| re.is_match(sentence)) {
        return None;
    }
    let listed = LIST_ITEM
        .as_ref()
        .is_some_and(|re| re.is_match(sentence.trim_start()));
    let sentence = strip_marker(sentence);
    // A comma right after a modal ("you should, at the very least, execute …") must not hide
    // it from the padded patterns.
    let l = strip_conditions(&lower(sentence));
    // A rule may end on its deontic phrase ("… are not permitted."): the full stop goes, so
    // that the padded phrases meet it.
    let l = format!("{} ", l.trim_end().trim_end_matches(['.', '!', ';']));
    let l = match MODAL_COMMA.as_ref() {
        Some(re) => re.replace_all(&l, "$1 ,").into_owned(),
        None => l,
    };
    // "provided, however, that …" is "provided that …" with an aside.
    let l = l.replace(" provided, however, that ", " provided that ");
    let before = event_before(&l);
    // The rule is in the main clause: a framing clause before it ("To make sure that this
    // cannot happen, you should set a password") holds no modal of the rule's.
    let l = l[frame_end(&l)..].to_owned();
    // What an "only" restricts the rule to ("paid only into …"), if anything.
    let only = restricted_to(&l);
    // "Should any part … be judged invalid": a condition, not a recommendation. A rule
    // whose subject is a pronoun ("This should not be included …") cannot be matched
    // without the sentence before it.
    let impersonal = ADVISED_THAT
        .iter()
        .chain(&REQUIRED_THAT)
        .any(|f| l.starts_with(f));
    if (l.starts_with(" should ") && !l.starts_with(" should not "))
        || ([" it ", " they "].iter().any(|p| l.starts_with(p)) && !impersonal)
        || pronoun_subject(&l)
    {
        return None;
    }
    const PROHIBIT: [&str; 23] = [
        " must not ",
        " mustn't ",
        " shall not ",
        " should not ",
        " shouldn't ",
        " may not ",
        " must never ",
        " may never ",
        " should never ",
        " shall never ",
        " is not permitted ",
        " are not permitted ",
        " is not allowed ",
        " are not allowed ",
        " is prohibited ",
        " are prohibited ",
        " is forbidden ",
        " are forbidden ",
        " recommend against ",
        " is not recommended ",
        " are not to ",
        " is not to ",
        " cannot be ",
    ];
    const IMPERATIVE_NOT: [&str; 3] = [" do not ", " don't ", " never "];
    // Reassurances, not rules: "Don't feel obligated to …", "do not hesitate to …".
    if [
        " don't feel ",
        " do not feel ",
        " don't worry ",
        " do not worry ",
        " do not hesitate ",
        " don't hesitate ",
        " don't bother ",
    ]
    .iter()
    .any(|p| l.contains(p))
    {
        return None;
    }
    const OBLIGE: [&str; 26] = [
        " provided that ",
        " must ",
        // A rule may end on its deontic adjective (`OBLIGING_ADJECTIVES`), like a passive
        // prohibition: "Wearing a life jacket is mandatory on the pontoons".
        " is mandatory ",
        " are mandatory ",
        " is compulsory ",
        " are compulsory ",
        " is obligatory ",
        " are obligatory ",
        " shall ",
        " should ",
        " is required to ",
        " are required to ",
        // A contract's parties bind themselves: "Licensee hereby agrees to include …".
        " agrees to ",
        " agree to ",
        " undertakes to ",
        " undertake to ",
        " has to ",
        " have to ",
        " needs to ",
        " need to ",
        // "Transfers require the approval of two trustees": what the subject needs.
        " requires ",
        " require ",
        " make sure ",
        " ensure that ",
        " be sure ",
        " always ",
    ];
    const PERMIT: [&str; 12] = [
        " need not ",
        // An obligation denied exempts: "Drafts do not need to be signed".
        " does not need to ",
        " do not need to ",
        " doesn't need to ",
        " don't need to ",
        " is not required to ",
        " are not required to ",
        " may ",
        " is permitted ",
        " are permitted ",
        " is allowed to ",
        " are free to ",
    ];
    let find = |needles: &[&'static str]| {
        needles
            .iter()
            .filter_map(|n| l.find(n).map(|i| (i, n.len(), *n)))
            .min_by_key(|(i, _, _)| *i)
    };
    let starts_imperative = IMPERATIVE_NOT
        .iter()
        .find(|n| {
            l.starts_with(**n) || l.contains(&format!(";{n}")) || l.contains(&format!(":{n}"))
        })
        .map(|n| (l.find(n).unwrap_or(0), n.len(), *n));
    let neither = ((l.starts_with(" neither ") || l.starts_with(" no "))
        && (l.contains(" may ") || l.contains(" shall ") || l.contains(" must ")))
        || super::matches(&NO_SUBJECT, first_clause(&l));
    let (deontic, at, len, word) = if neither {
        (Deontic::Prohibition, 0, 0, " neither ")
    } else if l.contains(" may not ") && l.contains(", but may ") {
        // "Other editors may not require a directory …, but may require …": may = might.
        return None;
    } else if let Some((i, n, w)) = find(&PROHIBIT).or(starts_imperative) {
        // "You may otherwise modify …, provided that you insert …": the condition governs.
        match find(&[" provided that "]) {
            Some((j, m, v)) if j < i && w == " may not " => (Deontic::Obligation, j, m, v),
            _ => (Deontic::Prohibition, i, n, w),
        }
    } else if let Some((i, n, w)) = [find(&OBLIGE), find(&ADVISED_THAT), find(&REQUIRED_THAT)]
        .into_iter()
        .flatten()
        .min_by_key(|(i, _, _)| *i)
    {
        match find(&PERMIT) {
            Some((j, m, v)) if j < i && v != " may " => (Deontic::Permission, j, m, v),
            _ => (Deontic::Obligation, i, n, w),
        }
    } else if listed && find(&PERMIT).is_none_or(|(i, _, _)| i > 40) {
        // A condition in a list ("b) accompany it with a written offer …"), even when it
        // carries an exception ("except that you may …").
        (Deontic::Obligation, 0, 0, "")
    } else if let Some((i, n, w)) = find(&PERMIT) {
        // "may only be paid to …", "may be paid only to …" restrict: what they allow is all
        // that is allowed.
        if w == " may " && l[i + n..].split_whitespace().take(3).any(|x| x == "only") {
            (Deontic::Obligation, i, n, MAY_ONLY)
        } else {
            (Deontic::Permission, i, n, w)
        }
    } else if let Some(m) = RETAINED_FOR.as_ref().and_then(|re| re.find(&l)) {
        // A schedule states what is done: "Customer contracts are kept for six years."
        (Deontic::Obligation, m.start(), 0, STATED)
    } else if let Some(m) = FOR_PERIOD.as_ref().and_then(|re| re.find(&l))
        && !text::content_terms(&l[..m.start()]).is_empty()
    {
        // … and how long something lasts: "The chair holds office for two years."
        (Deontic::Obligation, m.start(), 0, STATED)
    } else if let Some(m) = AFTER_PERIOD.as_ref().and_then(|re| re.find(&l))
        && !text::content_terms(&l[..m.start()]).is_empty()
    {
        // … and how long it waits: "Idle dinghies are moved after 30 days."
        (Deontic::Obligation, m.start(), 0, STATED)
    } else if let Some(m) = SIZE.as_ref().and_then(|re| re.find(&l))
        && !text::content_terms(&l[..m.start()]).is_empty()
    {
        // … and what a body is made of: "The board consists of seven directors."
        (Deontic::Obligation, m.start(), 0, STATED)
    } else if let Some(at) = stated_measure(&l) {
        // A standard written in the present tense states its rules as facts: "Line managers
        // review access rights every quarter", "We reply within three working days".
        (Deontic::Obligation, at, 0, STATED_MEASURE)
    } else if let Some(i) = BEFORE.iter().filter_map(|b| l.find(b)).min()
        && !before.is_empty()
        && !text::content_terms(&l[..i]).is_empty()
    {
        // … and its order: "Due diligence is completed before any contract is signed".
        (Deontic::Obligation, 0, 0, STATED_ORDER)
    } else if let Some(i) = l.find(" only ")
        && only.is_some()
        && !text::content_terms(&l[..i]).is_empty()
    {
        // … and what it restricts: "Commissions are paid only into the agent's own account".
        (Deontic::Obligation, 0, 0, STATED_RESTRICTION)
    } else {
        return None;
    };
    let measure_only = word == STATED_MEASURE;
    let stated = word == STATED || measure_only;
    let after = first_clause(&l[(at + len).min(l.len())..]);
    // "Shared accounts are not permitted.", "Smoking is prohibited on site", "Wearing a life
    // jacket is mandatory": a rule worded as a passive or an adjective governs its subject,
    // which comes before it, with what follows it.
    let obliging = OBLIGING_ADJECTIVES.iter().any(|e| word.trim().ends_with(e));
    let passive = {
        let w = word.trim();
        (w.starts_with("is ") || w.starts_with("are "))
            && (obliging
                || ["permitted", "allowed", "prohibited", "forbidden"]
                    .iter()
                    .any(|e| w.ends_with(e)))
    };
    let governed = if (deontic == Deontic::Prohibition || obliging) && passive {
        format!(" {} {after}", l[..at].trim())
    } else {
        format!(" {after}")
    };
    // "… except as expressly provided under this License": the rule defers to the others.
    // An exception for a purpose ("must not be altered except as required to install it")
    // defers to nothing: the rule binds beyond it.
    if super::matches(&DEFERS, &governed) {
        return None;
    }
    let strong = !ADVISED_THAT.contains(&word)
        && !matches!(
            word.trim(),
            "should"
                | "should not"
                | "shouldn't"
                | "should never"
                | "recommend against"
                | "is not recommended"
                | "make sure"
                | "ensure that"
                | "be sure"
                | ""
        );
    let positive_content = positive(&main_clause_until(
        &without_that_clauses(&governed),
        &RULE_BREAKS,
    ));
    let positive = match deontic {
        // "Line managers review access rights every quarter and remove rights that are no
        // longer needed": what follows the measure is another act.
        _ if measure_only => positive(&l[..at]),
        Deontic::Prohibition if neither => has_removal(&governed),
        Deontic::Prohibition => !positive_content,
        _ => positive_content,
    };
    let required_paths = REQUIRED_PATH
        .as_ref()
        .map(|re| {
            re.captures_iter(sentence)
                .filter_map(|c| c.get(1))
                .flat_map(|m| {
                    std::iter::once(trim_path(m.as_str()))
                        .chain(alternative_paths(&sentence[m.end()..]))
                })
                .collect()
        })
        .unwrap_or_default();
    // How long a record is kept: at least the period a rule names ("must be retained for seven
    // years"), exactly the period a schedule states ("are kept for six months").
    let retained = RETAINED_FOR
        .as_ref()
        .map(|re| {
            re.captures_iter(&l)
                .filter_map(|c| {
                    let n = lexicon::number(c.get(1)?.as_str())?;
                    let (value, dimension) = measure(None, n, c.get(2).map(|m| m.as_str()))?;
                    let text = c.get(0)?.as_str().trim().to_owned();
                    let exact = stated.then(|| Bound {
                        text: text.clone(),
                        minimum: false,
                        value,
                        dimension: dimension.clone(),
                        cap: false,
                    });
                    Some(
                        std::iter::once(Bound {
                            text,
                            minimum: true,
                            value,
                            dimension,
                            cap: false,
                        })
                        .chain(exact),
                    )
                })
                .flatten()
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    // What a rule forbids beyond a threshold ("must not weigh more than 30 kilograms", "cannot
    // be longer than 3 days") is allowed up to it: the threshold is the largest allowed.
    let caps = if deontic == Deontic::Prohibition && !neither {
        thresholds(&governed)
    } else {
        Vec::new()
    };
    // A count capped per period is also a least interval: "not more than one release per
    // month" is met by "once a month" and broken by "every week".
    let per_period: Vec<Bound> = caps
        .iter()
        .filter(|(_, _, d)| matches!(d, Dimension::Count(_)))
        .filter_map(|(cap, n, _)| {
            let after = &governed[governed.find(cap.as_str())? + cap.len()..];
            let unit = PER_PERIOD.as_ref()?.captures(after)?.get(1)?.as_str();
            let days = unit_days(&unit.to_lowercase());
            (days > 0.0 && *n > 0.0).then(|| Bound {
                text: format!(
                    "not {cap} {}",
                    after
                        .split_whitespace()
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                minimum: true,
                value: days / n,
                dimension: Dimension::Interval,
                cap: true,
            })
        })
        .collect();
    // "There should not be more than one release per month": a prohibition that is all
    // threshold forbids going beyond it, not what it counts — doing that within the cap is
    // no breach ("must not accept tips above £50" forbids an act, and keeps its
    // polarity).
    let capped_only = caps.first().is_some_and(|(cap, _, _)| {
        let rest = governed.trim_start();
        rest.strip_prefix("be ")
            .unwrap_or(rest)
            .starts_with(cap.as_str())
    });
    // "this Code", "this Policy": the document the clause is in, not what it governs (the
    // clause's terms keep it: a permission "under this Code" still speaks of it).
    let itself = self_reference(sentence);
    let own_terms = |t: &str| -> HashSet<String> {
        terms(t)
            .into_iter()
            .filter(|w| !itself.contains(w))
            .collect()
    };
    Some(Clause {
        deontic,
        strong,
        positive,
        terms: terms(sentence),
        scope: own_terms(&governed),
        act: if measure_only {
            HashSet::new()
        } else {
            governed_act(&governed)
        },
        // What comes before a stated measure is its subject ("Line managers review …"), unless
        // it is only an adverb: "Approximately one week before …, we send" names none there,
        // or the condition of a wait ("if no member protests within …", [`waited`]).
        subject: if stated
            && !waited(&l[..at])
            && !l[..at]
                .split_whitespace()
                .all(|w| w.ends_with("ly") || text::content_terms(w).is_empty())
        {
            terms(&l[..at])
        } else {
            HashSet::new()
        },
        required_paths,
        required_names: names::required(sentence),
        values: labelled(sentence),
        // A recurrence a clause sets ("reviewed each quarter") is the longest interval allowed.
        bounds: loosest(
            bounds(sentence)
                .into_iter()
                .chain(caps.iter().map(|(text, value, dimension)| Bound {
                    cap: true,
                    text: format!("not {text}"),
                    minimum: false,
                    value: *value,
                    dimension: dimension.clone(),
                }))
                .chain(per_period)
                .chain(intervals(sentence).into_iter().map(|(text, value)| Bound {
                    text,
                    minimum: false,
                    value,
                    dimension: Dimension::Interval,
                    cap: false,
                }))
                .chain(periods(&l, stated, deontic, &retained))
                .chain(waits_after(&l, deontic, stated))
                .chain(if deontic == Deontic::Obligation && positive && !stated {
                    required_shares(&governed)
                } else {
                    Vec::new()
                })
                .chain(retained)
                .chain(sizes(&l, deontic))
                .collect(),
        ),
        before: if deontic == Deontic::Obligation && positive {
            before
        } else {
            HashSet::new()
        },
        thresholds: thresholds(sentence)
            .into_iter()
            .filter(|t| !caps.iter().any(|c| c.0 == t.0))
            .collect(),
        free_of_charge: lexicon::FREE_OF_CHARGE.iter().any(|f| governed.contains(f)),
        without_polarity: measure_only
            || capped_only
            || [STATED_ORDER, STATED_RESTRICTION, MAY_ONLY].contains(&word),
        only,
        precondition: if deontic == Deontic::Prohibition && !neither {
            let full = lower(strip_marker(sentence));
            full.find(word)
                .map(|at| without_terms(&full[at..]))
                .unwrap_or_default()
        } else {
            HashSet::new()
        },
        until: if deontic == Deontic::Prohibition {
            event_after(&governed, " until ")
        } else {
            HashSet::new()
        },
        unless: if deontic == Deontic::Prohibition {
            event_after(&l, " unless ")
        } else {
            HashSet::new()
        },
        forbidden_words: if deontic == Deontic::Prohibition && positive {
            quoted_words(sentence)
        } else {
            Vec::new()
        },
        apart: if deontic == Deontic::Obligation && positive {
            kept_apart(&APART, &governed)
                .into_iter()
                .flat_map(|(_, t)| t)
                .collect()
        } else {
            HashSet::new()
        },
    })
}

/// A word that sets something apart and the words after it: "different hooks", "a separate
/// account", "another person" (see [`Clause::apart`]).
static APART: Pattern = LazyLock::new(|| {
    regex(r"(?i)\b(?:different|separate|distinct|another)\s+((?:[a-z-]+\s+){0,2}[a-z-]+)")
});

/// A text's "same" and the words after it: "the same hook rail", or what things share: "the
/// dinghies share one hook rail" (see [`Statement::same`]).
static SAME: Pattern = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:same|shar(?:e|es|ed|ing)\s+(?:the|a|one|their))\s+((?:[a-z-]+\s+){0,2}[a-z-]+)",
    )
});

/// Most words after a word that sets apart (or "same") that name what it is said of.
const APART_WORDS: usize = 3;

/// What `pattern` ([`APART`] or [`SAME`]) says is apart or the same, each as its words (up
/// to [`APART_WORDS`] after the pattern's word, up to a function word: "different hooks *and*
/// lockers" keeps "hooks") and their terms.
fn kept_apart(pattern: &Pattern, text_: &str) -> Vec<(String, HashSet<String>)> {
    let Some(re) = pattern.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text_)
        .filter_map(|c| c.get(1))
        .map(|m| {
            let words: Vec<&str> = m
                .as_str()
                .split_whitespace()
                .take(APART_WORDS)
                .take_while(|w| !text::content_terms(w).is_empty())
                .collect();
            let phrase = words.join(" ");
            let terms = terms(&phrase)
                .into_iter()
                .filter(|t| !t.starts_with('§'))
                .collect();
            (phrase, terms)
        })
        .filter(|(phrase, _)| !phrase.is_empty())
        .collect()
}

/// Impersonal frames that open a recommendation ("It is recommended that crews always wear a
/// buoyancy aid"): the rule is what follows "that", and "it" points to nothing
/// before the sentence.
const ADVISED_THAT: [&str; 5] = [
    " it is recommended that ",
    " it is strongly recommended that ",
    " it is advisable that ",
    " it is advised that ",
    " it is important that ",
];

/// Impersonal frames that open a requirement ("It is essential that every boat carries …"),
/// read as [`ADVISED_THAT`] but binding.
const REQUIRED_THAT: [&str; 4] = [
    " it is required that ",
    " it is essential that ",
    " it is necessary that ",
    " it is mandatory that ",
];

/// Adjectives by which a rule that ends on them obliges ("… is mandatory"): such a rule
/// governs its subject, which comes before them (see [`clause`]; `OBLIGE` holds them after
/// "is" and "are").
const OBLIGING_ADJECTIVES: [&str; 3] = ["mandatory", "compulsory", "obligatory"];

/// Most words a quoted word or phrase a rule forbids may have ([`Clause::forbidden_words`]):
/// longer quoted material is an example or a citation, not a word to avoid.
const QUOTED_WORDS: usize = 3;

/// The short quoted words of a sentence ([`QUOTED`], at most [`QUOTED_WORDS`] words of
/// letters, digits and hyphens), lower case, without their quotes.
fn quoted_words(sentence: &str) -> Vec<String> {
    let Some(re) = QUOTED.as_ref() else {
        return Vec::new();
    };
    re.find_iter(sentence)
        .map(|m| {
            m.as_str()
                .trim_matches(|c: char| matches!(c, '"' | '“' | '”'))
                .trim()
                .to_lowercase()
        })
        .filter(|q| {
            let words = q.split_whitespace().count();
            (1..=QUOTED_WORDS).contains(&words)
                && q.chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == ' ')
                && q.chars().filter(|c| c.is_alphabetic()).count() >= 2
        })
        .collect()
}

/// A capitalised word after "this" ("this License", "this Agreement", "this Policy", "this
/// Section"): how a clause names the document it is in, or a part of it.
static SELF_REFERENCE: Pattern = LazyLock::new(|| regex(r"\b[Tt]his\s+([A-Z][a-z]+)\b"));

/// The terms by which a clause refers to its own document ([`SELF_REFERENCE`]): in a licence
/// nearly every clause says "this License", which tells nothing of what the clause governs,
/// and a statement that merely mentions a licence must not meet every clause through it.
fn self_reference(sentence: &str) -> HashSet<String> {
    let Some(re) = SELF_REFERENCE.as_ref() else {
        return HashSet::new();
    };
    re.captures_iter(sentence)
        .filter_map(|c| c.get(1))
        .flat_map(|m| terms(m.as_str()))
        .collect()
}

/// Fewest words of a name by which a statement refers to a document ([`without_document_name`]).
const NAME_RUN_WORDS: usize = 2;

/// The statement without the own name of the document it is checked against, when it
/// writes that name: a run of at least [`NAME_RUN_WORDS`] capitalised words whose every stem is one
/// of the document's names (`names`: its title, file name and printed title, stemmed as
/// `extractive::stems` stems them), such as "the Harbour Licence" in "… is used under the
/// Harbour Licence". `None` when it writes none. The words of a subject the title shares in
/// lower case ("berth fees" under a "Berth Fees Policy") stay: they say what is done.
pub fn without_document_name(sentence: &str, names: &HashSet<String>) -> Option<String> {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let named = |w: &str| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        let own = super::extractive::stems(bare);
        bare.chars().next().is_some_and(char::is_uppercase)
            && !own.is_empty()
            && own.iter().all(|t| names.contains(t))
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut found = false;
    let mut i = 0;
    while i < words.len() {
        let run = words[i..].iter().take_while(|w| named(w)).count();
        if run >= NAME_RUN_WORDS {
            found = true;
            // The run's last word keeps what follows it ("Licence." ends the sentence).
            let tail = words[i + run - 1].trim_start_matches(|c: char| c.is_alphanumeric());
            let tail =
                tail.trim_start_matches(|c: char| !matches!(c, '.' | ',' | ';' | ':' | '!' | '?'));
            if !tail.is_empty() {
                kept.push(tail);
            }
            i += run;
        } else {
            kept.push(words[i]);
            i += 1;
        }
    }
    found.then(|| kept.join(" "))
}

/// Most words read after "without" as what is done without.
const WITHOUT_WORDS: usize = 4;

/// The terms of what a text says something is done without: up to [`WITHOUT_WORDS`] words
/// after its first "without", to the end of the clause ("… leave without a signed float plan,
/// …" → "sign", "float", "plan").
fn without_terms(text_: &str) -> HashSet<String> {
    let lower = text_.to_lowercase();
    let Some(at) = lower.find("without ") else {
        return HashSet::new();
    };
    let after = &lower[at + "without ".len()..];
    let clause_end = after.find([',', ';', '.', ':', '(']).unwrap_or(after.len());
    let words: Vec<&str> = after[..clause_end]
        .split_whitespace()
        .take(WITHOUT_WORDS)
        .collect();
    terms(&words.join(" "))
        .into_iter()
        .filter(|t| !t.starts_with('§'))
        .collect()
}

/// Where a sentence without a modal states a measure of what is done — a recurrence ("every
/// quarter") or a bound ("within three working days", "at least 14 characters") — after a
/// subject of at least one content word: such a line of a standard binds its subject as a
/// rule does ("Line managers review access rights every quarter"). `None` when it states none.
fn stated_measure(l: &str) -> Option<usize> {
    let recurrence_or_threshold = PERIOD
        .as_ref()
        .and_then(|re| re.find(l))
        .map(|m| m.start())
        .or_else(|| {
            // "Anything worth more than 100 pounds is approved in advance": the line applies
            // its act from a threshold.
            THRESHOLD
                .as_ref()
                .and_then(|re| re.captures_iter(l).find(|c| measured(c, 2).is_some()))
                .and_then(|c| c.get(0))
                .map(|m| m.start())
        });
    let bound = [&BOUND, &TIME_TO, &LEAD_TIME]
        .into_iter()
        .filter_map(|re| {
            re.as_ref()?
                .captures_iter(l)
                .find(|c| measured(c, 2).is_some())
                .and_then(|c| c.get(0))
                .map(|m| m.start())
        })
        .min();
    let at = match (recurrence_or_threshold, bound) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    // Several recurrences ("Tier 1 every year, Tier 2 every two years, Tier 3 every three
    // years", "High: every 12 months; Medium: every 24 months") are a schedule by category read
    // as one line: which binds what cannot be told, and its loosest says next to nothing, so
    // the line binds none. Several bounds of another kind bind by the loosest ([`loosest`]).
    let recurrences: Vec<f64> = intervals(l).into_iter().map(|(_, v)| v).collect();
    let schedule = recurrences
        .iter()
        .any(|v| recurrences.iter().any(|w| (v - w).abs() > 1e-9));
    (!schedule && !text::content_terms(&l[..at]).is_empty()).then_some(at)
}

/// The bounds that bind when a rule sets several of one kind, one per case ("180 pounds a night
/// in London and 120 pounds elsewhere", "12 people on the ground floor and 8 upstairs"): which
/// case a statement is in cannot be told from its words, so each kind of
/// bound keeps only its loosest value (the largest maximum, the smallest minimum). A statement
/// beyond the loosest breaks the rule whichever case it is in; one within it is not flagged.
fn loosest(all: Vec<Bound>) -> Vec<Bound> {
    let mut kept: Vec<Bound> = Vec::new();
    for b in all {
        match kept
            .iter_mut()
            .find(|k| k.dimension == b.dimension && k.minimum == b.minimum)
        {
            Some(k) => {
                let looser = if b.minimum {
                    b.value < k.value
                } else {
                    b.value > k.value
                };
                if looser {
                    *k = b;
                }
            }
            None => kept.push(b),
        }
    }
    kept
}

/// Words that put an event after the act a rule requires ("before connecting", "prior to
/// collection").
const BEFORE: [&str; 2] = [" before ", " prior to "];

/// Most words after "before" that name the event.
const EVENT_WORDS: usize = 5;

/// The terms of the event a padded lower-case rule puts after its act, up to a comma or
/// [`EVENT_WORDS`] words.
fn event_before(l: &str) -> HashSet<String> {
    BEFORE
        .iter()
        .find_map(|b| l.contains(b).then(|| event_after(l, b)))
        .unwrap_or_default()
}

/// The terms of the event a padded lower-case text names after `word` (" before ", " until "),
/// up to a comma or [`EVENT_WORDS`] words; empty when it has no such word.
fn event_after(l: &str, word: &str) -> HashSet<String> {
    l.find(word)
        .map(|i| &l[i + word.len()..])
        .map(|rest| {
            let event = rest.split(',').next().unwrap_or_default();
            terms(
                &event
                    .split_whitespace()
                    .take(EVENT_WORDS)
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
        .unwrap_or_default()
}

/// Whether a statement part does its act only on the condition a prohibition excepts
/// (`unless`, its terms): a condition it opens ("only when", "only if", "once", "provided")
/// that names at least two of the exception's terms, or all of them when it has fewer. "A
/// skipper moors at the fuel pontoon only when the harbour master has agreed" meets "must not
/// moor … unless the harbour master agrees"; a condition on anything else does not.
fn meets_exception(part: &str, unless: &HashSet<String>) -> bool {
    const CONDITIONS: [&str; 6] = [
        " only when ",
        " only if ",
        " only once ",
        " only after ",
        " once ",
        " provided ",
    ];
    let l = format!(" {} ", part.to_lowercase());
    let needed = unless.len().min(2);
    needed > 0
        && CONDITIONS.iter().any(|c| {
            l.find(c)
                .is_some_and(|at| shared(&terms(&l[at + c.len()..]), unless) >= needed)
        })
}

/// Whether a statement part (lower case) does the act of a rule after the event the rule puts
/// after it: "later" or "afterwards" after a word of the act ("the first update is run a week
/// later"), or "after" followed by the event ("updated after connecting"). "After installing
/// the updates, connect …" puts the act first.
fn done_after(part: &str, act: &HashSet<String>, event: &HashSet<String>) -> bool {
    let words: Vec<String> = part
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(text::stem)
        .collect();
    let first_act = words.iter().position(|w| act.contains(w));
    let late = words.iter().enumerate().any(|(i, w)| {
        matches!(w.as_str(), "later" | "afterward" | "afterwards")
            && first_act.is_some_and(|a| a < i)
    });
    // "after" whose object is the event: its first word past articles and auxiliaries.
    let after_event = words.iter().enumerate().any(|(i, w)| {
        w == "after"
            && words[i + 1..]
                .iter()
                .find(|x| {
                    !matches!(
                        x.as_str(),
                        "the" | "a" | "an" | "any" | "hav" | "be" | "being" | "its" | "their"
                    )
                })
                .is_some_and(|x| event.contains(x))
    });
    late || after_event
}

fn trim_path(p: &str) -> String {
    p.trim_end_matches(['.', ',', ';', ':', ')']).to_owned()
}

fn labelled(text_: &str) -> Vec<(String, String)> {
    [&LABELLED, &FIELD]
        .into_iter()
        .filter_map(|p| p.as_ref())
        .flat_map(|re| {
            re.captures_iter(text_)
                .filter_map(|c| {
                    Some((
                        c.get(1)?.as_str().to_lowercase(),
                        c.get(2)?.as_str().to_lowercase(),
                    ))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn measure(currency: Option<&str>, n: f64, unit: Option<&str>) -> Option<(f64, Dimension)> {
    static CURRENCY_WORD: Pattern =
        LazyLock::new(|| regex(&format!(r"(?i)^(?:{CURRENCY_WORDS})$")));
    static PERCENT_WORD: Pattern = LazyLock::new(|| regex(&format!(r"(?i)^(?:{PERCENT})$")));
    static TIME_WORD: Pattern = LazyLock::new(|| regex(&format!(r"(?i)^(?:{TIME_UNITS})$")));
    if currency.is_some() || unit.is_some_and(|u| super::matches(&CURRENCY_WORD, u.trim())) {
        return Some((n, Dimension::Money));
    }
    let unit = unit?.trim().to_lowercase();
    if super::matches(&PERCENT_WORD, &unit) {
        return Some((n, Dimension::Percent));
    }
    // A size of data, in bytes whatever its unit ("100 kB", "5 MB").
    if let Some(bytes) = byte_factor(&unit) {
        return Some((n * bytes, Dimension::Count("byte".into())));
    }
    if !super::matches(&TIME_WORD, &unit) {
        // A count of what the word names; a function word ("at least one of") counts nothing.
        let mut thing = text::content_terms(&unit);
        return match (thing.pop(), thing.is_empty()) {
            (Some(t), true) if t.chars().all(|c| c.is_alphabetic()) => {
                Some((n, Dimension::Count(text::stem(&t))))
            }
            _ => None,
        };
    }
    let days = if unit.contains("minute") {
        1.0 / 1440.0
    } else if unit.contains("hour") {
        1.0 / 24.0
    } else if unit.contains("day") {
        1.0
    } else if unit.contains("week") {
        7.0
    } else if unit.contains("month") {
        30.4
    } else if unit.contains("year") {
        365.0
    } else {
        return None;
    };
    Some((n * days, Dimension::Time))
}

/// How many bytes one of a unit of data is (`lexicon::MEASURE_UNITS`' sizes of data, decimal
/// prefixes), or `None` for any other unit.
fn byte_factor(unit: &str) -> Option<f64> {
    const BYTES: [(&str, f64); 5] = [
        ("bytes", 1.0),
        ("kilobytes", 1e3),
        ("megabytes", 1e6),
        ("gigabytes", 1e9),
        ("terabytes", 1e12),
    ];
    BYTES.iter().find_map(|(name, factor)| {
        lexicon::MEASURE_UNITS
            .iter()
            .find(|(n, _)| n == name)
            .is_some_and(|(n, symbols)| *n == unit || symbols.contains(&unit))
            .then_some(*factor)
    })
}

/// The quantity a match of [`BOUND`], [`THRESHOLD`] or [`QUANTITY`] measures, from its
/// currency group (`currency`), the number group after it and the unit group after that.
///
/// The number group may hold an article and its unit of time ("at least a year", "within an
/// hour"): one of that unit (whatever word follows it).
fn measured(c: &regex::Captures<'_>, currency: usize) -> Option<(f64, Dimension)> {
    let number = c.get(currency + 1)?.as_str();
    let (n, unit) = match number.split_once(char::is_whitespace) {
        Some((article, unit)) if matches!(article.to_lowercase().as_str(), "a" | "an") => {
            (1.0, Some(unit))
        }
        _ => (
            lexicon::number(number)?,
            c.get(currency + 2).map(|m| m.as_str()),
        ),
    };
    measure(
        c.get(currency)
            .map(|m| m.as_str())
            .filter(|m| !m.trim().is_empty()),
        n,
        unit,
    )
}

/// The periods of a clause ([`FOR_PERIOD`]) as bounds: both ways when the clause states
/// it (`stated`), the longest allowed for a permission, the shortest for an obligation; none
/// for a prohibition, or where a retention period (`retained`) already reads it.
fn periods(text_: &str, stated: bool, deontic: Deontic, retained: &[Bound]) -> Vec<Bound> {
    let Some(re) = FOR_PERIOD.as_ref() else {
        return Vec::new();
    };
    let (minimum, maximum) = match deontic {
        _ if stated => (true, true),
        Deontic::Permission => (false, true),
        Deontic::Obligation => (true, false),
        Deontic::Prohibition => (false, false),
    };
    re.captures_iter(text_)
        .filter_map(|c| {
            let text = c.get(0)?.as_str().trim().to_owned();
            if retained
                .iter()
                .any(|b| b.text.contains(&text) || text.contains(&b.text))
            {
                return None;
            }
            let n = match c.get(1).or(c.get(2)) {
                Some(n) => lexicon::number(n.as_str())?,
                None => 1.0,
            };
            time_bounds(&text, n, c.get(3).map(|m| m.as_str()), (minimum, maximum))
        })
        .flatten()
        .collect()
}

/// A time a clause names (a mooring "held for three years", a dinghy "moved after 30 days") as
/// the bounds it sets: the least it allows (`minimum`), the most (`maximum`), both or neither.
/// `None` for a unit that measures no time.
fn time_bounds(
    text: &str,
    n: f64,
    unit: Option<&str>,
    (minimum, maximum): (bool, bool),
) -> Option<Vec<Bound>> {
    let (value, dimension) = measure(None, n, unit)?;
    Some(
        [(minimum, true), (maximum, false)]
            .into_iter()
            .filter(|(sets, _)| *sets)
            .map(|(_, least)| Bound {
                text: text.to_owned(),
                minimum: least,
                value,
                dimension: dimension.clone(),
                cap: false,
            })
            .collect(),
    )
}

/// The waits of a clause ([`AFTER_PERIOD`]) as bounds: what a rule requires to be done "after
/// 30 days" is done no sooner; what a schedule states (`stated`, no modal: "moved to the
/// compound after 30 days") is done then, neither sooner nor later, as [`periods`] reads a
/// stated period. None for a prohibition (its time says when the act is forbidden) or a
/// permission (a statement is held to a permission's limits only when it permits more, see
/// [`check`]).
fn waits_after(text_: &str, deontic: Deontic, stated: bool) -> Vec<Bound> {
    let Some(re) = AFTER_PERIOD.as_ref() else {
        return Vec::new();
    };
    if deontic != Deontic::Obligation {
        return Vec::new();
    }
    re.captures_iter(text_)
        .filter_map(|c| {
            let n = lexicon::number(c.get(1)?.as_str())?;
            let text = c.get(0)?.as_str().trim();
            time_bounds(text, n, c.get(2).map(|m| m.as_str()), (true, stated))
        })
        .flatten()
        .collect()
}

fn bounds(text_: &str) -> Vec<Bound> {
    let (Some(re), Some(time_to), Some(lead)) =
        (BOUND.as_ref(), TIME_TO.as_ref(), LEAD_TIME.as_ref())
    else {
        return Vec::new();
    };
    // Each match with whether it is a lead time ([`LEAD_TIME`]) by its own words.
    re.captures_iter(text_)
        .chain(time_to.captures_iter(text_))
        .map(|c| (c, false))
        .chain(lead.captures_iter(text_).map(|c| (c, true)))
        .filter_map(|(c, lead_time)| {
            // "may be extended by up to 1 week" bounds the change, not the period.
            if text_[..c.get(0)?.start()]
                .trim_end()
                .to_lowercase()
                .ends_with(" by")
            {
                return None;
            }
            let kind = c.get(1)?.as_str().to_lowercase();
            let (value, dimension) = measured(&c, 2)?;
            let whole = c.get(0)?;
            // A number group that holds its unit ("a year", see [`measured`]) ends the bound:
            // the word the unit group took after it is the text's next word.
            let number = c.get(3)?;
            let end = if number.as_str().contains(char::is_whitespace) {
                number.end()
            } else {
                whole.end()
            };
            let lead = lead_time || dimension == Dimension::Time && names_lead(&text_[end..]);
            let dimension = match dimension {
                _ if lead => Dimension::Lead,
                Dimension::Count(kind) if super::matches(&SIZE_BEFORE, &text_[..whole.start()]) => {
                    Dimension::Size(kind)
                }
                d => d,
            };
            // A wait, like a deadline a clause makes its condition, holds whatever the
            // clause's polarity ("if nobody objects …").
            let before = text_[..whole.start()].to_lowercase();
            let waits = dimension == Dimension::Time && waited(&before);
            Some(Bound {
                text: text_[whole.start()..end].trim().to_owned(),
                minimum: kind.contains("least")
                    || ((kind.contains("less") || kind.contains("fewer"))
                        && (kind.starts_with("no") || kind.starts_with("not")))
                    || kind.contains("minimum")
                    || lead
                    || waits,
                value,
                dimension,
                cap: waits || deadline_is_condition(&before),
            })
        })
        .collect()
}

/// Whether the text before a bound (lower case) makes its time a wait: a condition that nobody
/// acts within it ("if no member protests within 14 days, the berth is let", "if no member asks
/// for a vote within a week") lets what follows happen only once the whole time has passed, so
/// the time is the least that must pass, not a deadline.
fn waited(l: &str) -> bool {
    let sentence = l.rsplit(['.', ';']).next().unwrap_or(l);
    sentence.rfind("if ").is_some_and(|at| {
        (at == 0 || !sentence[..at].ends_with(char::is_alphanumeric))
            && sentence[at + 3..]
                .split_whitespace()
                .next()
                .is_some_and(|w| matches!(w, "nobody" | "no" | "none" | "no-one"))
    })
}

/// Whether the text before a bound (lower case) makes the deadline a clause's condition —
/// missing it ends something ([`missed_deadline`]) or meeting it keeps something
/// ([`kept_by_deadline`]): such a bound holds as a cap does, whatever the clause's own polarity.
fn deadline_is_condition(l: &str) -> bool {
    missed_deadline(l) || kept_by_deadline(l)
}

/// Words before a deadline that make missing it the condition a clause names: "if the holder fails
/// to settle the invoice within 30 days", "failure to pay within 14 days" — the act is still due by
/// the deadline, whatever the clause's own polarity.
const FAILING: [&str; 5] = [
    "fail to ",
    "fails to ",
    "failed to ",
    "failing to ",
    "failure to ",
];

/// Most words between a [`FAILING`] phrase and the deadline it fails ("fail to cure such
/// breach within …").
const FAILED_ACT_WORDS: usize = 6;

/// Whether the lower-case text before a bound ends with a failure to act by it ([`FAILING`]).
fn missed_deadline(l: &str) -> bool {
    FAILING.iter().any(|f| {
        l.rfind(f).is_some_and(|at| {
            let act = &l[at + f.len()..];
            act.split_whitespace().count() <= FAILED_ACT_WORDS && !act.contains([',', ';', '.'])
        })
    })
}

/// Verbs of a right that lasts on a condition: "your licence continues if you …", "you can
/// keep this licence by …", "rights are reinstated if …".
const KEEPING: [&str; 8] = [
    "continue",
    "continues",
    "keep",
    "keeps",
    "retain",
    "retains",
    "reinstated",
    "restored",
];

/// Most words between a [`KEEPING`] verb and the "if" or "by" of its condition ("keep this
/// licence by …", "can nonetheless continue if …").
const KEPT_IF_WORDS: usize = 4;

/// Whether the lower-case text before a bound makes meeting it the condition on which a right
/// lasts ("the permit continues if you repay the arrears … within 14 days", "you keep the
/// berth by paying within a week").
fn kept_by_deadline(l: &str) -> bool {
    let sentence = l.rsplit(['.', ';']).next().unwrap_or(l);
    let words: Vec<&str> = sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        KEEPING.contains(w)
            && words[i + 1..]
                .iter()
                .take(KEPT_IF_WORDS + 1)
                .any(|n| matches!(*n, "if" | "by"))
    })
}

/// The sizes a clause gives a body ([`SIZE`]), each as the least and the most it allows; none
/// for a permission or a prohibition (what "may consist of five members" or "must not consist of
/// five members" binds is not a size).
fn sizes(text_: &str, deontic: Deontic) -> Vec<Bound> {
    let Some(re) = SIZE.as_ref() else {
        return Vec::new();
    };
    if deontic != Deontic::Obligation {
        return Vec::new();
    }
    re.captures_iter(text_)
        .filter_map(|c| {
            let (value, Dimension::Count(kind)) = measured(&c, 2)? else {
                return None;
            };
            let text = c.get(0)?.as_str().trim().to_owned();
            let bound = |minimum| Bound {
                text: text.clone(),
                minimum,
                value,
                dimension: Dimension::Size(kind.clone()),
                cap: false,
            };
            Some([bound(true), bound(false)])
        })
        .flatten()
        .collect()
}

/// The shares and counts of people an obligation asks for with no bound word of their own
/// ("must have 100% test coverage", "shall hold a 20% reserve", "require the signatures of two
/// trustees"), each as the least it accepts: a text that settles for less ("kept at 80% or
/// more", "signed by one trustee") falls short of it. A quantity a bound word reads ("at most
/// 30%") is that bound's; a day of the calendar ("by 31 March") counts nothing.
fn required_shares(governed: &str) -> Vec<Bound> {
    let bounded: Vec<String> = bounds(governed).into_iter().map(|b| b.text).collect();
    // A count is of those who must act or consent ("by two officers", "of three members"): a
    // count that a comparison word leads ("under 80 characters") is a bound of its own.
    let counted = |q: &str, d: &Dimension| match d {
        Dimension::Percent => true,
        Dimension::Count(thing) => {
            governed.find(q).is_some_and(|at| {
                governed[..at].ends_with(" by ") || governed[..at].ends_with(" of ")
            }) && !lexicon::CALENDAR_NAMES
                .iter()
                .any(|n| text::stem(&n.to_lowercase()) == *thing)
        }
        _ => false,
    };
    quantities(governed)
        .into_iter()
        .filter(|(q, _, d)| counted(q, d) && !bounded.iter().any(|b| b.contains(q.as_str())))
        .map(|(text, value, dimension)| Bound {
            text,
            minimum: true,
            value,
            dimension,
            cap: false,
        })
        .collect()
}

/// The thresholds a text sets ([`THRESHOLD`]), as (text, value, dimension); one preceded by
/// "no" or "not" is a bound.
fn thresholds(text_: &str) -> Vec<(String, f64, Dimension)> {
    let Some(re) = THRESHOLD.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text_)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let before = text_[..whole.start()].to_lowercase();
            if before.ends_with("no ") || before.ends_with("not ") {
                return None;
            }
            let (v, d) = measured(&c, 2)?;
            Some((whole.as_str().trim().to_owned(), v, d))
        })
        .collect()
}

fn quantities(text_: &str) -> Vec<(String, f64, Dimension)> {
    let Some(re) = QUANTITY.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text_)
        .filter_map(|c| {
            let (v, d) = measured(&c, 1)?;
            let whole = c.get(0)?;
            // "one day before the release": a notice period ([`Dimension::Lead`]).
            let lead = d == Dimension::Time && names_lead(&text_[whole.end()..]);
            let d = match d {
                _ if lead => Dimension::Lead,
                // "The board has seven members": the board's size.
                Dimension::Count(kind)
                    if super::matches(&SIZE_STATED_BEFORE, &text_[..whole.start()]) =>
                {
                    Dimension::Size(kind)
                }
                d => d,
            };
            Some((whole.as_str().trim().to_owned(), v, d))
        })
        .collect()
}

/// Whether a statement that breaks a bound of `clause` stays out of range under a permission
/// that measures the same thing: "dinghy logs may stay on file for a period of four years"
/// against "at least six years" allows four years, not the "two years" a text gives. A
/// permission that states no such measure is not judged here (it may clear the statement).
pub fn beyond_permission(statement: &Statement, clause: &Clause, permission: &str) -> bool {
    let allowed = quantities(&undoubled(permission));
    clause.bounds.iter().any(|b| {
        statement.quantities.iter().any(|(_, v, d)| {
            let outside = |limit: f64| {
                if b.minimum {
                    *v < limit * 0.999
                } else {
                    *v > limit * 1.001
                }
            };
            comparable(d, &b.dimension)
                && outside(b.value)
                && allowed
                    .iter()
                    .any(|(_, p, pd)| comparable(pd, &b.dimension) && outside(*p))
        })
    })
}

/// Whether a permission can clear a number outside `rule`'s range: only a permission of the act
/// the rule bounds, or of a measure like the rule's. "Drafts need not be signed" allows nothing
/// about how long a signed record is kept.
pub fn allows_range(rule: &Clause, permission: &Clause) -> bool {
    rule.act.iter().any(|a| permission.terms.contains(a))
        || permission.bounds.iter().any(|p| {
            rule.bounds
                .iter()
                .any(|b| comparable(&p.dimension, &b.dimension))
        })
}

/// Whether the words after a length of time make it a notice period ([`Dimension::Lead`]):
/// "before" or "prior to" an event, "ahead" (of it), "in advance", "beforehand".
fn names_lead(after: &str) -> bool {
    let a = after.trim_start().to_lowercase();
    ["before", "prior to", "ahead", "in advance"]
        .iter()
        .any(|w| {
            a.strip_prefix(w).is_some_and(|rest| {
                !rest.starts_with(|c: char| c.is_alphanumeric()) || *w == "before"
            })
        })
}

/// What a clause bounds that the statement also measures (the dimensions both name), and a
/// recurrence when the statement states one: a deadline is held against a recurrence
/// ([`check`]) only when no clause that sets a recurrence governs the statement better.
pub fn measured_alike(statement: &Statement, clause: &Clause) -> Vec<Dimension> {
    let mut dims: Vec<Dimension> = clause
        .bounds
        .iter()
        .map(|b| b.dimension.clone())
        .filter(|d| {
            statement
                .quantities
                .iter()
                .any(|(_, _, q)| comparable(q, d))
        })
        .collect();
    if statement
        .quantities
        .iter()
        .any(|(_, _, q)| *q == Dimension::Interval)
        && !dims.contains(&Dimension::Interval)
    {
        dims.push(Dimension::Interval);
    }
    dims
}

/// The text pasted into an audit request, if any: what follows the first blank line, a line
/// ending with a colon, or a colon early in the message; else a quoted passage. `None` when
/// the message is only the request ("audit this against @X").
pub fn pasted_source(message: &str) -> Option<String> {
    let long = |t: &str| t.split_whitespace().count() >= 8;
    if let Some((_, rest)) = message.split_once("\n\n")
        && long(rest)
    {
        return Some(rest.trim().to_owned());
    }
    if let Some((first, rest)) = message.split_once('\n')
        && first.trim_end().ends_with(':')
        && long(rest)
    {
        return Some(rest.trim().to_owned());
    }
    if let Some(i) = message.find(':')
        && i < 200
        && message[i + 1..].split_whitespace().count() >= 15
    {
        return Some(message[i + 1..].trim().to_owned());
    }
    for (open, close) in [('“', '”'), ('"', '"')] {
        if let Some(a) = message.find(open) {
            let after = &message[a + open.len_utf8()..];
            if let Some(b) = after.rfind(close)
                && long(&after[..b])
            {
                return Some(after[..b].trim().to_owned());
            }
        }
    }
    None
}

/// A rule governs a statement only when it fits the statement nearly as well as the rule that
/// fits it best (embedding similarity): a text restating one clause must not be judged against
/// every other clause that shares a few of its words. Lower judges each statement against
/// fewer clauses (fewer false alarms, and more missed conflicts).
pub const GOVERNING_MARGIN: f32 = 0.15;

/// Which clauses govern a statement, given each clause's similarity to it and whether it is a
/// permission: the rules within [`GOVERNING_MARGIN`] of the best-fitting rule, and every
/// permission (a permission only ever clears a statement, it never flags one).
///
/// `acting[i]`: clause `i` is about the act the statement does (see [`ACT_MARGIN`]).
///
/// `measuring[i]`: clause `i` bounds a dimension the statement measures ([`measured_alike`]):
/// like a rule about the statement's act, it is looked for further off when no rule within the
/// margin bounds what the statement measures ("hulls are scrapped three months after launch"
/// against "hulls stay afloat for at least a year after launch", worded unlike the statement).
///
/// `narrow[i]`: clause `i` binds only a measure, an order or a restriction
/// ([`Clause::without_polarity`]); such a clause governs within the margin like any rule, but
/// the margin is set by the best-fitting full rule when there is one: a schedule line that
/// restates the statement's subject must not push the rule it breaks out of the margin.
pub fn governing(
    similarities: &[f32],
    permission: &[bool],
    narrow: &[bool],
    acting: &[bool],
    measuring: &[bool],
) -> Vec<bool> {
    let is_permission = |i: usize| permission.get(i).copied().unwrap_or(false);
    let is_narrow = |i: usize| narrow.get(i).copied().unwrap_or(false);
    let best_of = |full: bool| {
        similarities
            .iter()
            .enumerate()
            .filter(|(i, _)| !is_permission(*i) && (!full || !is_narrow(*i)))
            .map(|(_, s)| *s)
            .fold(f32::NEG_INFINITY, f32::max)
    };
    let best = match best_of(true) {
        b if b.is_finite() => b,
        _ => best_of(false),
    };
    let governs = similarities
        .iter()
        .enumerate()
        .map(|(i, s)| is_permission(i) || *s >= best - GOVERNING_MARGIN)
        .collect::<Vec<bool>>();
    // When no rule within the margin is about the act the statement does, or bounds what it
    // measures, the rules that are are looked for further off.
    let further = |flags: &[bool]| -> Vec<bool> {
        let flagged = |i: usize| flags.get(i).copied().unwrap_or(false);
        let met = (0..similarities.len()).any(|i| governs[i] && !is_permission(i) && flagged(i));
        similarities
            .iter()
            .enumerate()
            .map(|(i, s)| !met && flagged(i) && *s >= best - ACT_MARGIN)
            .collect()
    };
    let (acts, measures) = (further(acting), further(measuring));
    (0..similarities.len())
        .map(|i| governs[i] || acts[i] || measures[i])
        .collect()
}

/// How far below the best-fitting rule a rule about the very act the statement does (the
/// statement read as a rule names the same act: "may be introduced in …" and "shall not be
/// introduced in …") still governs it when no rule within [`GOVERNING_MARGIN`] is about that act: a list item
/// read without the line that introduces its list fits the statement less well than it
/// governs it. Higher judges more statements against a rule about their act.
pub const ACT_MARGIN: f32 = 0.25;

/// Splits the audited text into statements (headings of the pasted text are not statements).
pub fn statements(source: &str) -> Vec<Statement> {
    text::sentences_loose(source)
        .into_iter()
        .filter(|s| s.text.split_whitespace().count() >= 3 && !text::looks_like_heading(&s.text))
        .map(|s| statement(&s.text))
        .collect()
}

/// Reads one sentence of the audited text.
pub fn statement(text_: &str) -> Statement {
    let sentence = &undoubled(text_);
    let l = unquote(&lower(sentence));
    let mut parts = Vec::new();
    let mut pieces = vec![l.clone()];
    for sep in ["; ", ", but ", ", and ", ", while ", ", whereas ", " but "] {
        pieces = pieces
            .into_iter()
            .flat_map(|p| p.split(sep).map(str::to_owned).collect::<Vec<_>>())
            .collect();
    }
    for p in pieces {
        let padded = format!(" {} ", p.trim());
        // "no way to opt out" denies an act as "cannot opt out" does (a capability noun and
        // its infinitive, `lexicon::CAPABILITY_NOUNS`).
        let verbal = NEGATIONS
            .iter()
            .filter(|n| !matches!(n.as_str(), " nothing " | " none " | " nobody " | " no "))
            .any(|n| padded.contains(n.as_str()))
            || lexicon::CAPABILITY_NOUNS
                .iter()
                .any(|c| padded.contains(&format!(" no {c} to ")));
        let negated = NEGATIONS
            .iter()
            .filter_map(|n| padded.find(n.as_str()).map(|i| i + n.len()))
            .min()
            .map(|i| {
                terms(
                    &padded[i..]
                        .split_whitespace()
                        .take(8)
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            })
            .unwrap_or_else(|| terms(&padded));
        let optional = super::matches(&OPTIONAL, &padded);
        parts.push(Part {
            universal: universal(&padded),
            text: p.trim().to_owned(),
            terms: terms(&padded),
            positive: positive(&main_clause(&padded)) && !optional,
            optional,
            quantifier_only: has_negation(&padded) && !verbal,
            quantified: quantified(&padded),
            negated,
        });
    }
    let paths = PATH
        .as_ref()
        .map(|re| {
            re.captures_iter(sentence)
                .filter_map(|c| c.get(1).map(|m| trim_path(m.as_str())))
                .collect()
        })
        .unwrap_or_default();
    let exempt: Vec<(String, f64, Dimension)> = parts
        .iter()
        .flat_map(|p| exempt_thresholds(&p.text))
        .collect();
    Statement {
        text: text_.to_owned(),
        parts,
        terms: terms(sentence),
        paths,
        names: names::given(sentence),
        same: kept_apart(&SAME, sentence),
        values: labelled(sentence),
        thresholds: thresholds(sentence).into_iter().chain(exempt).collect(),
        quantities: quantities(sentence)
            .into_iter()
            .chain(
                intervals(sentence)
                    .into_iter()
                    .map(|(t, v)| (t, v, Dimension::Interval)),
            )
            .collect(),
    }
}

/// Terms of the words a " no " quantifies in a padded lower-case text, up to two before an
/// auxiliary ("no backup is taken" → backup; "no personal data is kept" → personal, data).
fn quantified(padded: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for (i, _) in padded.match_indices(" no ") {
        for w in padded[i + 4..]
            .split_whitespace()
            .take(2)
            .take_while(|w| !lexicon::AUXILIARIES.contains(w))
        {
            out.extend(terms(w));
        }
    }
    out
}

/// Whether a location one of the governing `clauses` requires holds every path of the
/// statement ("installed in /usr/lib/ocaml/harbour-tide" under "Libraries should be installed
/// in /usr/lib/ocaml/ or in a subdirectory"): rules that require other locations are then its
/// exceptions or other cases ("shared libraries (dll*.so) should be installed in
/// /usr/lib/ocaml/stublibs"), and the statement is not held to them.
pub fn location_met(statement: &Statement, clauses: &[&Clause]) -> bool {
    !statement.paths.is_empty()
        && clauses.iter().any(|c| {
            c.deontic == Deontic::Obligation
                && c.positive
                && !c.required_paths.is_empty()
                && statement
                    .paths
                    .iter()
                    .all(|p| c.required_paths.iter().any(|r| path_within(p, r)))
        })
}

/// Whether a name the statement gives fits a name `clause` requires.
fn named_as_required(statement: &Statement, clause: &Clause) -> bool {
    statement
        .names
        .iter()
        .any(|n| clause.required_names.iter().any(|t| t.fits(n)))
}

/// Whether a name one of the governing `clauses` requires fits a name the statement gives
/// ("named mb-17" under "A mooring buoy should be named mb-foo"): rules that require other
/// names are then about other things ("a spare buoy should be named spare-foo"), and the
/// statement is not held to them (as [`location_met`]).
pub fn name_met(statement: &Statement, clauses: &[&Clause]) -> bool {
    clauses
        .iter()
        .any(|c| c.deontic == Deontic::Obligation && c.positive && named_as_required(statement, c))
}

/// Whether a statement grants something rather than requires or forbids it: "may", "can",
/// "is acceptable", "is allowed" (see `lexicon::PERMISSIVE`).
pub fn permits(sentence: &str) -> bool {
    let l = lower(sentence);
    let words: Vec<&str> = l
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let not = |w: Option<&&str>| w.is_some_and(|w| matches!(*w, "not" | "never" | "no"));
    (0..words.len()).any(|i| {
        lexicon::PERMISSIVE.contains(&words[i])
            && !not(words.get(i + 1))
            && !not(i.checked_sub(1).and_then(|j| words.get(j)))
    })
}

/// Whether `path` lies in `required` (a `<package>`-style placeholder matches one component).
pub fn path_within(path: &str, required: &str) -> bool {
    let p: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let r: Vec<&str> = required.trim_end_matches('/').split('/').collect();
    // A name broken at a line end after its hyphen loses the hyphen when the lines are joined
    // ("…/tide-" + "gauges" → "tidegauges"), as a PDF viewer's text does: names that differ
    // only by hyphens are one name.
    let same = |a: &str, b: &str| a == b || (a.replace('-', "") == b.replace('-', ""));
    r.len() <= p.len()
        && r.iter()
            .zip(&p)
            .all(|(a, b)| same(a, b) || (a.starts_with('<') && a.ends_with('>')) || *a == "*")
}

/// Terms the statement shares with the clause (topic words only).
pub fn shared(s: &HashSet<String>, c: &HashSet<String>) -> usize {
    s.intersection(c).count()
}

/// Whether a statement part negates a word of the clause by the prefix "un-" ("uncompressed"
/// against "compressed", "unsigned" against "signed").
fn negates_by_prefix(part: &str, clause_terms: &HashSet<String>) -> bool {
    part.split(|c: char| !c.is_alphanumeric())
        .filter_map(|w| w.strip_prefix("un"))
        .filter(|rest| rest.chars().count() >= 4)
        .any(|rest| clause_terms.contains(&text::stem(rest)))
}

/// Similarity at which a statement that shares one word with a clause and measures what the
/// clause bounds is held to that bound (two shared words, or 0.6, make any statement topical):
/// lower holds statements to bounds of clauses about other things, higher lets a measure
/// worded differently ("we cut a release every week" against "not more than one release per
/// month") pass unchecked.
pub const MEASURED_TOPIC: f32 = 0.5;

/// Checks a statement against a clause; `similarity` is the cosine similarity of their
/// embeddings. Returns the conflict a rule detects, if any.
pub fn check(statement: &Statement, clause: &Clause, similarity: f32) -> Option<Conflict> {
    let overlap = shared(&statement.terms, &clause.terms);
    if similarity < 0.2 {
        return None;
    }
    let severity = if clause.strong {
        Severity::High
    } else {
        Severity::Medium
    };
    let words = statement
        .terms
        .intersection(&clause.terms)
        .filter(|t| !t.starts_with('/'))
        .count();
    let topical = words >= 2 || (words >= 1 && similarity >= 0.6);
    let money = statement
        .quantities
        .iter()
        .any(|(_, _, d)| *d == Dimension::Money);
    // A permission up to a limit ("may accept gifts of up to £50 without approval") is broken
    // only by a text that permits more ("may accept gifts worth up to £75").
    if clause.deontic == Deontic::Permission {
        if !topical || !permits(&statement.text) {
            return None;
        }
        for b in clause.bounds.iter().filter(|b| !b.minimum) {
            for (q, v, d) in &statement.quantities {
                // More than permitted: a larger amount or period, or a shorter interval
                // between two occurrences ("twice a year" where "once in each year" is allowed).
                let more = if *d == Dimension::Interval {
                    *v < b.value * 0.999
                } else {
                    *v > b.value * 1.001
                };
                if *d == b.dimension && more {
                    return Some(Conflict {
                        rule: AuditRule::OutOfRange,
                        severity: Severity::High,
                        summary: format!(
                            "The text allows “{q}” where the clause permits only “{}”",
                            b.text
                        ),
                        suggestion: format!("Limit it to “{}”.", b.text),
                    });
                }
            }
        }
        return None;
    }
    // A word the rule forbids by quoting it, written in the text ("libfoo-sharp1.2" against
    // "Never use “sharp” in the package name"), about what the rule governs.
    if !clause.forbidden_words.is_empty() && shared(&statement.terms, &clause.scope) >= 1 {
        // Written in a part that affirms it ("we never name a taxi “ferry”" keeps the rule).
        let written = |w: &String| {
            statement
                .parts
                .iter()
                .any(|p| p.positive && p.text.contains(w.as_str()))
        };
        if let Some(w) = clause.forbidden_words.iter().find(|w| written(w)) {
            return Some(Conflict {
                rule: AuditRule::ProhibitionBreached,
                severity,
                summary: format!("The text uses “{w}”, which the clause forbids"),
                suggestion: format!("Do without “{w}”, as the clause requires."),
            });
        }
    }
    // A required name none of the statement's names fits ("named buoy-17" against "prefixed
    // with mb-").
    if !clause.required_names.is_empty()
        && !statement.names.is_empty()
        && topical
        && clause.positive
        && clause.deontic == Deontic::Obligation
        && !named_as_required(statement, clause)
    {
        let required: Vec<&str> = clause
            .required_names
            .iter()
            .map(|t| t.written.as_str())
            .collect();
        return Some(Conflict {
            rule: AuditRule::WrongValue,
            severity,
            summary: format!(
                "The text names it {} where the clause requires {}",
                statement.names.join(", "),
                required.join(" or ")
            ),
            suggestion: format!("Name it as the clause requires: {}.", required.join(" or ")),
        });
    }
    // A required location the statement's paths all miss.
    if !clause.required_paths.is_empty() && !statement.paths.is_empty() && topical {
        let inside = statement
            .paths
            .iter()
            .any(|p| clause.required_paths.iter().any(|r| path_within(p, r)));
        let names_other_root = statement
            .paths
            .iter()
            .any(|p| !clause.required_paths.iter().any(|r| path_within(p, r)));
        if !inside && names_other_root && clause.positive {
            return Some(Conflict {
                rule: AuditRule::WrongValue,
                severity,
                summary: format!(
                    "The text uses {} where the clause requires {}",
                    statement.paths.join(", "),
                    clause.required_paths.join(" or ")
                ),
                suggestion: format!("Move it to {}.", clause.required_paths.join(" or ")),
            });
        }
    }
    // A labelled value ("mode 777") other than the one required ("mode 755").
    for (label, value) in &statement.values {
        let required: Vec<&String> = clause
            .values
            .iter()
            .filter(|(l, _)| l == label)
            .map(|(_, v)| v)
            .collect();
        if clause.deontic == Deontic::Obligation
            && overlap >= 1
            && !required.is_empty()
            && !required.contains(&value)
        {
            let want = required
                .iter()
                .map(|v| format!("{label} {v}"))
                .collect::<Vec<_>>()
                .join(" or ");
            return Some(Conflict {
                rule: AuditRule::WrongValue,
                severity,
                summary: format!("The text uses {label} {value} where the clause requires {want}"),
                suggestion: format!("Use {want}."),
            });
        }
    }
    // A quantity outside the bound the clause sets; a schedule line's bound binds only its
    // own subject ("Driver timesheets are kept for two years" says nothing of manifests).
    let own_subject = clause.subject.is_empty() || shared(&statement.terms, &clause.subject) >= 1;
    // A statement that measures what the clause bounds ("every week" against "not more than
    // one release per month") is on topic with one shared word at [`MEASURED_TOPIC`].
    let measured_topic = || {
        words >= 1 && similarity >= MEASURED_TOPIC && !measured_alike(statement, clause).is_empty()
    };
    if own_subject && (topical || measured_topic()) {
        for b in &clause.bounds {
            for (q, v, d) in &statement.quantities {
                // A deadline ("within 10 days") is missed by what is done only at intervals
                // longer than it ("at the end of each quarter").
                // Not when the rule names that recurrence itself: "within 14 days after the
                // end of each quarter" is met by "within 10 days after the end of each quarter".
                let deadline = *d == Dimension::Interval
                    && b.dimension == Dimension::Time
                    && !b.minimum
                    && !clause
                        .bounds
                        .iter()
                        .any(|o| o.dimension == Dimension::Interval && (o.value - v).abs() < 0.01);
                if !comparable(d, &b.dimension) && !deadline {
                    continue;
                }
                let outside = if b.minimum {
                    *v < b.value * 0.999
                } else {
                    *v > b.value * 1.001
                };
                if outside && (clause.positive || b.cap) {
                    return Some(Conflict {
                        rule: AuditRule::OutOfRange,
                        severity: Severity::High,
                        summary: format!(
                            "The text gives “{q}” where the clause requires “{}”",
                            b.text
                        ),
                        suggestion: format!("Change {q} to meet “{}”.", b.text),
                    });
                }
            }
        }
    }
    // A rule that applies from a threshold ("every claim above 25 euros must have a receipt")
    // is narrowed by a text that applies it only from a higher one ("receipts are only needed
    // for claims above 50 euros"): what lies between is left out.
    if topical && shared(&statement.terms, &clause.scope) >= 1 {
        for (c, cv, cd) in &clause.thresholds {
            for (q, v, d) in &statement.thresholds {
                if d == cd && *v > cv * 1.001 {
                    return Some(Conflict {
                        rule: AuditRule::OutOfRange,
                        severity,
                        summary: format!(
                            "The text applies it only “{q}” where the clause applies it “{c}”"
                        ),
                        suggestion: format!("Apply it “{c}”, as the clause does."),
                    });
                }
            }
        }
    }
    // What the rule keeps apart the text keeps together: "on different hooks from the boat
    // keys" against "on the same hook as the boat keys" (hooks, not keys, are kept apart).
    if topical
        && clause.positive
        && let Some((together, _)) = statement
            .same
            .iter()
            .find(|(_, t)| shared(t, &clause.apart) >= 1)
    {
        return Some(Conflict {
            rule: AuditRule::WrongValue,
            severity,
            summary: format!(
                "The text uses the same {together} where the clause requires them to differ"
            ),
            suggestion: "Keep them apart, as the clause requires.".into(),
        });
    }
    // Order: the act the clause requires before an event is done after it.
    if !clause.before.is_empty() && topical {
        let act: HashSet<String> = clause.scope.difference(&clause.before).cloned().collect();
        let late = statement.parts.iter().any(|p| {
            shared(&p.terms, &act) >= 1
                && shared(&p.terms, &clause.before) >= 1
                && done_after(&p.text, &act, &clause.before)
        });
        if late {
            return Some(Conflict {
                rule: AuditRule::ObligationNotMet,
                severity,
                summary: "The text does after the event what the clause requires before it".into(),
                suggestion: "Do it before, as the clause requires.".into(),
            });
        }
    }
    // Scope: the rule allows only one kind ("paid only into a bank account in the agent's own
    // name"), the text any one of it ("to any account the agent names").
    if let Some((phrase, kind)) = &clause.only
        && topical
        && clause.positive
        && clause.deontic != Deontic::Prohibition
    {
        let rest: HashSet<String> = clause.terms.difference(kind).cloned().collect();
        // What the rule itself says of any one ("only up to a specified amount in any
        // dividend") is no widening, nor is a text that keeps the "only".
        let own_any = universal(&lower(phrase));
        let widened = statement.parts.iter().find(|p| {
            p.positive
                && !format!(" {} ", p.text).contains(" only ")
                && p.universal
                    .iter()
                    .any(|t| kind.contains(t) && !own_any.contains(t))
                && shared(&p.terms, &rest) >= 1
        });
        if widened.is_some() {
            return Some(Conflict {
                rule: AuditRule::WrongValue,
                severity,
                summary: format!("The text allows any where the clause allows only “{phrase}”"),
                suggestion: format!("Restrict it to “{phrase}”, as the clause does."),
            });
        }
    }
    if clause.without_polarity {
        return None;
    }
    // Polarity: the part of the statement that speaks about what the clause governs says the
    // opposite of what the clause requires.
    let part = statement
        .parts
        .iter()
        .map(|p| (shared(&p.terms, &clause.scope), p))
        .max_by_key(|(n, p)| (*n, !p.positive))?;
    // Charging money for what a clause says must be free is on topic whatever the wording.
    let charged = money
        && part.1.terms.contains("§charge")
        && clause.scope.contains("§charge")
        && similarity >= 0.25;
    // An amount asked for what a rule gives free ("The first copy shall be provided free of
    // charge" against "every copy, including the first, costs 10 crowns"): whatever the
    // polarity words, the rule's "free" is broken by a price for the same thing.
    if charged
        && clause.free_of_charge
        && clause.deontic == Deontic::Obligation
        && shared(
            &part
                .1
                .terms
                .iter()
                .filter(|t| !t.starts_with('§'))
                .cloned()
                .collect(),
            &clause.terms,
        ) >= 1
    {
        return Some(Conflict {
            rule: AuditRule::ProhibitionBreached,
            severity,
            summary: "The text charges for what the clause gives free of charge".into(),
            suggestion: "Provide it free of charge, as the clause requires.".into(),
        });
    }
    // The act, or a family of acts ("marked" meets "carry notices": §notice), must be named. A
    // derived word names the act too ("acceptable" for "accept"): one stem begins the other and
    // the shorter has at least five letters.
    let derived = |a: &String, t: &String| {
        let (short, long) = if a.len() <= t.len() { (a, t) } else { (t, a) };
        short == long || short.chars().count() >= 5 && long.starts_with(short.as_str())
    };
    // A statement that makes its subject optional denies every act a rule requires of it.
    let made_optional = clause.deontic == Deontic::Obligation && part.1.optional;
    let names_act = clause.act.is_empty()
        || made_optional
        || clause
            .act
            .iter()
            .any(|a| part.1.terms.iter().any(|t| derived(a, t)))
        || part
            .1
            .terms
            .intersection(&clause.scope)
            .any(|t| t.starts_with('§'));
    // A short rule whose every word the statement names ("Shared accounts are not
    // permitted" against "the night shift shares one administrator account") is on topic
    // however differently the rest of the statement reads.
    let scope_words = clause.scope.iter().filter(|t| !t.starts_with('§')).count();
    let whole_scope = scope_words >= 2 && part.0 >= scope_words;
    let on_topic = charged
        || names_act
            && ((part.0 >= 2 && similarity >= 0.4)
                || part.0 >= 3
                || whole_scope
                || (part.0 >= 1 && similarity >= 0.55 && overlap >= 2));
    // "Must not leave without a float plan": the act done without what the rule requires
    // first breaks it, whatever else the text's polarity says.
    if on_topic
        && !clause.precondition.is_empty()
        && shared(&without_terms(&part.1.text), &clause.precondition) >= 1
    {
        return Some(Conflict {
            rule: AuditRule::ProhibitionBreached,
            severity,
            summary: "The text does without what the clause requires first".into(),
            suggestion: "Do it only with what the clause requires.".into(),
        });
    }
    // "Installed uncompressed" says the opposite of "installed compressed".
    let part_positive = part.1.positive != negates_by_prefix(&part.1.text, &clause.terms)
        || clause.deontic == Deontic::Prohibition && does_before_without(&part.1.text, &clause.act);
    if !on_topic || part_positive == clause.positive {
        return None;
    }
    // A prohibition that lasts until an event is broken only by an act done before it: a
    // statement silent on the event says nothing of when the act is done.
    if !clause.until.is_empty() && shared(&part.1.terms, &clause.until) == 0 {
        return None;
    }
    // A prohibition's exception that the statement makes its own condition is met.
    if meets_exception(&part.1.text, &clause.unless) {
        return None;
    }
    // Against an obligation, the negated words must be about what the clause requires, and
    // an assurance of absence ("nothing is stored on the quay") is not a failure to act, unless what
    // it says there is none of is what the clause requires ("no backup is taken" against
    // "must provide the ability to back up").
    if clause.positive
        && clause.deontic == Deontic::Obligation
        && !part_positive
        && !part.1.positive
        && ((part.1.quantifier_only && shared(&part.1.quantified, &clause.act) == 0)
            || shared(&part.1.negated, &clause.scope) == 0)
    {
        return None;
    }
    Some(match clause.deontic {
        Deontic::Prohibition if clause.positive => Conflict {
            rule: AuditRule::ObligationNotMet,
            severity,
            summary: "The text removes or omits what the clause forbids removing".into(),
            suggestion: "Keep what the clause requires to be kept.".into(),
        },
        Deontic::Prohibition => Conflict {
            rule: AuditRule::ProhibitionBreached,
            severity,
            summary: "The text does what the clause forbids".into(),
            suggestion:
                "Remove or change the statement so it no longer does what the clause forbids."
                    .into(),
        },
        _ if !clause.positive => Conflict {
            rule: AuditRule::ProhibitionBreached,
            severity,
            summary: "The text does what the clause requires to be absent".into(),
            suggestion: "Change the statement so it meets the clause.".into(),
        },
        _ => Conflict {
            rule: AuditRule::ObligationNotMet,
            severity,
            summary: "The text does not do what the clause requires".into(),
            suggestion: "Revise the text so it does what the clause requires.".into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule `text` reads as (a test's own rule sentence, which must read as one).
    fn rule(text: &str) -> Clause {
        clause(text).unwrap_or_else(|| panic!("no clause: {text}"))
    }

    #[test]
    fn an_item_without_a_modal_is_bound_by_the_modal_its_lead_ends_with() {
        let lead = "2. A member who brings a guest to the clubhouse must:";
        let reading = framed_item(lead, "B. sign the guest in at the gate; and").unwrap();
        assert_eq!(
            reading,
            "A member who brings a guest to the clubhouse must sign the guest in at the gate; and"
        );
        let rule = clause(&reading).unwrap();
        assert_eq!(rule.deontic, Deontic::Obligation);
        let unsigned =
            statement("Our members bring guests to the clubhouse and do not sign them in.");
        assert!(check(&unsigned, &rule, 0.6).is_some());
        // The same list run into one sentence.
        let run_on = "A member who brings a guest must: 1. sign the guest in at the gate; and 2. stay with the guest.";
        let pieces = rule_pieces(run_on);
        assert_eq!(pieces.len(), 3, "{pieces:?}");
        assert_eq!(
            pieces[2].reading,
            "A member who brings a guest must stay with the guest."
        );
        assert_eq!(pieces[1].text, "1. sign the guest in at the gate; and");
        // A list of things binds nothing through its labels.
        let things = "The clubhouse has the following: 1. rooms for changing and showers; and 2. lockers for every member.";
        assert!(
            rule_pieces(things)
                .iter()
                .skip(1)
                .all(|p| clause(&p.reading).is_none())
        );
        // A lead that binds nothing, or an item with its own modal, is read as it is.
        assert_eq!(framed_item("The clubhouse has:", "a. a bar;"), None);
    }

    #[test]
    fn a_procedure_step_under_a_lead_that_requires_it_done_is_an_instruction() {
        let lead = "Before a boat is lifted out, this is what must be done:";
        let step = framed_item(
            lead,
            "2. Drain the fuel tank at least 24 hours before the lift.",
        )
        .unwrap();
        assert_eq!(
            step,
            "You must drain the fuel tank at least 24 hours before the lift."
        );
        let rule = clause(&step).unwrap();
        assert!(
            check(
                &statement("We drain the fuel tank 2 hours before the lift."),
                &rule,
                0.7
            )
            .is_some()
        );
        // Things listed, not acts: an article, a path; and a lead that requires nothing.
        assert_eq!(framed_item(lead, "3. The hull is washed."), None);
        assert_eq!(framed_item(lead, "4. crane.cfg: the lift settings"), None);
        assert_eq!(
            framed_item("The yard keeps these tools:", "1. Drain pumps"),
            None
        );
        assert_eq!(framed_item(lead, "c. guests may not stay overnight."), None);
    }

    #[test]
    fn a_party_that_agrees_to_an_act_is_bound_to_it() {
        let rule = clause(
            "The Member hereby agrees to include a copy of the berth rules in every sublease.",
        )
        .unwrap();
        assert_eq!(rule.deontic, Deontic::Obligation);
        assert!(rule.strong);
        let none = statement("Our subleases do not include a copy of the berth rules.");
        assert!(check(&none, &rule, 0.7).is_some());
        let proviso = clause(
            "The Member may sublet the berth, provided, however, that the berth rules are retained in every sublease.",
        )
        .unwrap();
        assert_eq!(proviso.deontic, Deontic::Obligation);
    }

    #[test]
    fn doing_without_what_a_rule_requires_first_breaks_it() {
        let rule =
            clause("A boat should not leave the harbour without a signed float plan.").unwrap();
        assert_eq!(rule.deontic, Deontic::Prohibition);
        let breach = statement(
            "Our boats leave the harbour as soon as the crew is aboard, without a float plan.",
        );
        assert_eq!(
            check(&breach, &rule, 0.7).map(|c| c.rule),
            Some(AuditRule::ProhibitionBreached)
        );
        let kept = statement("Our boats leave the harbour only with a signed float plan.");
        assert!(check(&kept, &rule, 0.7).is_none());
    }

    #[test]
    fn not_keeping_what_a_rule_requires_retaining_breaks_it() {
        let rule =
            clause("Every member must retain the mooring receipts in the logbook of the boat.")
                .unwrap();
        let dropped = statement("We do not keep the mooring receipts in our boat logbooks.");
        assert_eq!(
            check(&dropped, &rule, 0.6).map(|c| c.rule),
            Some(AuditRule::ObligationNotMet)
        );
        let kept = statement("We keep the mooring receipts in every boat logbook.");
        assert!(check(&kept, &rule, 0.6).is_none());
    }

    #[test]
    fn offering_what_a_rule_forbids_supplying_breaks_it() {
        let rule = clause("Members may not supply club boats to outside groups as a hire service.")
            .unwrap();
        assert_eq!(rule.deontic, Deontic::Prohibition);
        let offered = statement("We offer club boats to outside groups as a weekend hire service.");
        assert_eq!(
            check(&offered, &rule, 0.6).map(|c| c.rule),
            Some(AuditRule::ProhibitionBreached)
        );
        let kept = statement("Club boats are never offered to outside groups.");
        assert!(check(&kept, &rule, 0.6).is_none());
        // "Provided" that opens a condition gives nothing.
        assert!(!terms("Boats may be hired, provided that a steward agrees.").contains("§provide"));
        assert!(terms("Boats are provided to members.").contains("§provide"));
    }

    #[test]
    fn a_count_of_the_same_thing_is_bounded_and_counts_of_other_things_never_compare() {
        let rule = clause("Each locker code must have at least 8 digits.").unwrap();
        assert_eq!(rule.bounds[0].dimension, Dimension::Count("digit".into()));
        let short = statement("Our locker codes have at least 6 digits.");
        let c = check(&short, &rule, 0.7).unwrap();
        assert_eq!(c.rule, AuditRule::OutOfRange);
        // Six uses are not six digits.
        let uses = statement("Locker codes are changed after 6 uses of the locker.");
        assert!(check(&uses, &rule, 0.7).is_none());
        // A function word after a number counts nothing.
        assert!(bounds("at least one of the keys").is_empty());
        assert!(check(&statement("Locker codes have 10 digits."), &rule, 0.7).is_none());
    }

    #[test]
    fn a_text_that_allows_any_of_a_kind_breaks_a_rule_that_allows_only_one() {
        let rule = clause("Spare keys are handed only to tenants named in the lease.").unwrap();
        assert!(rule.without_polarity);
        let any = statement("The porter hands spare keys to any tenant who asks.");
        assert_eq!(
            check(&any, &rule, 0.6).map(|c| c.rule),
            Some(AuditRule::WrongValue)
        );
        // "Any" about another slot is no widening: who asks is not whom keys go to.
        let other = statement("Any porter hands spare keys to tenants named in the lease.");
        assert!(check(&other, &rule, 0.6).is_none());
        // A text that keeps the "only", or the rule's own "any", is no widening.
        let kept = statement("The porter hands spare keys only to tenants named in any lease.");
        let rule_any = clause("Dividends are paid only up to a set amount in any year.").unwrap();
        assert!(check(&kept, &rule, 0.6).is_none());
        assert!(
            check(
                &statement("Dividends are paid only up to a set amount in any year."),
                &rule_any,
                0.9
            )
            .is_none()
        );
        // "Only if" is a condition.
        assert!(restricted_to(" keys are handed over only if the lease is signed ").is_none());
        // With a modal too.
        let modal = clause("Refunds may be paid only to the card used for the purchase.").unwrap();
        let wide = statement("Refunds are paid to any card the customer gives us.");
        assert_eq!(
            check(&wide, &modal, 0.6).map(|c| c.rule),
            Some(AuditRule::WrongValue)
        );
    }

    #[test]
    fn an_exemption_below_an_amount_narrows_a_rule_that_applies_from_a_lower_one() {
        let rule = clause(
            "Any repair costing more than 300 euros is authorised in advance by the fleet manager.",
        )
        .unwrap();
        assert!(rule.without_polarity);
        let wider = statement(
            "Repairs costing up to 900 euros need no authorisation from the fleet manager.",
        );
        assert_eq!(wider.thresholds[0].0, "above 900 euros");
        assert_eq!(wider.thresholds[0].1, 900.0);
        assert_eq!(
            check(&wider, &rule, 0.6).map(|c| c.rule),
            Some(AuditRule::OutOfRange)
        );
        let same = statement("Repairs costing up to 300 euros need no authorisation.");
        assert!(check(&same, &rule, 0.6).is_none());
        // Without a negation "up to" is a limit, not an exemption.
        assert!(
            statement("We spend up to 900 euros on repairs.")
                .thresholds
                .is_empty()
        );
    }

    #[test]
    fn a_line_without_a_modal_binds_the_order_it_states() {
        let rule =
            clause("Keys are signed out in the register before they leave the key room.").unwrap();
        assert!(rule.without_polarity);
        let late =
            statement("Keys leave the key room at once and are signed out in the register later.");
        assert_eq!(
            check(&late, &rule, 0.6).map(|c| c.rule),
            Some(AuditRule::ObligationNotMet)
        );
        let kept = statement("Keys are signed out in the register before they leave the key room.");
        assert!(check(&kept, &rule, 0.9).is_none());
        // It binds the order only: what the statement denies elsewhere is another rule's.
        assert!(
            check(
                &statement("Keys are not signed out in the register."),
                &rule,
                0.6
            )
            .is_none()
        );
    }

    #[test]
    fn a_passive_prohibition_governs_its_subject() {
        let rule = clause("Borrowed keys are not permitted.").unwrap();
        assert_eq!(rule.deontic, Deontic::Prohibition);
        assert!(rule.scope.contains("borrow"), "{rule:?}");
        let breach = statement("On weekends the cleaners borrow one master key.");
        assert_eq!(
            check(&breach, &rule, 0.6).map(|c| c.rule),
            Some(AuditRule::ProhibitionBreached)
        );
        assert!(
            check(
                &statement("Keys are never borrowed by cleaners."),
                &rule,
                0.6
            )
            .is_none()
        );
        // Every word of the short rule named: on topic even when the rest reads otherwise.
        assert!(check(&breach, &rule, 0.35).is_some());
        assert!(
            check(
                &statement("Borrowed keys were withdrawn last year."),
                &rule,
                0.35
            )
            .is_none()
        );
        // What follows says where or when: it is governed too.
        let place =
            clause("Riding bicycles is prohibited inside the loading bay during deliveries.")
                .unwrap();
        assert!(
            place.scope.contains("bicycl") && place.scope.contains("bay"),
            "{place:?}"
        );
    }

    #[test]
    fn a_line_of_a_standard_without_a_modal_binds_the_measure_it_states() {
        let rule = clause("The caretaker inspects the fire doors every month.").unwrap();
        assert!(rule.without_polarity);
        assert_eq!(rule.deontic, Deontic::Obligation);
        let rarer = statement("The fire doors are inspected every quarter.");
        assert_eq!(
            check(&rarer, &rule, 0.7).unwrap().rule,
            AuditRule::OutOfRange
        );
        assert!(
            check(
                &statement("The fire doors are inspected every week."),
                &rule,
                0.7
            )
            .is_none()
        );
        // It binds its measure only, not what else the line says ("… and removes wedges that
        // are no longer needed").
        let aside = clause(
            "The caretaker inspects the fire doors every month and removes wedges that are no longer needed.",
        )
        .unwrap();
        assert!(aside.positive);
        assert!(
            check(
                &statement("We never remove the wedges from the fire doors."),
                &aside,
                0.7
            )
            .is_none()
        );
        // Several recurrences (a schedule by category read as one line) bind nothing; several
        // bounds of another kind, one per case, bind by the loosest: what breaks it breaks
        // every case.
        assert!(clause("Boilers are serviced: gas every 12 months, oil every 6 months.").is_none());
        let rooms = clause(
            "Meeting rooms are limited to 12 people on the ground floor and 8 people upstairs.",
        )
        .unwrap();
        let crowded = statement("Meeting rooms on the ground floor take up to 15 people.");
        assert_eq!(
            check(&crowded, &rooms, 0.7).unwrap().rule,
            AuditRule::OutOfRange
        );
        let ground = statement("Meeting rooms on the ground floor take up to 10 people.");
        assert!(check(&ground, &rooms, 0.7).is_none());
        // Without a measure, a line in the present tense states no rule.
        assert!(clause("Visitors to the archive sign the register at the desk.").is_none());
        // A bound after a subject: "We reply within three working days".
        let reply =
            clause("The help desk replies to every letter within three working days.").unwrap();
        assert!(
            reply
                .bounds
                .iter()
                .any(|b| !b.minimum && (b.value - 3.0).abs() < 1e-9)
        );
    }

    fn conflict(stmt: &str, cl: &str) -> Option<AuditRule> {
        let c = clause(cl)?;
        check(&statement(stmt), &c, 0.6).map(|x| x.rule)
    }

    #[test]
    fn a_capitalised_list_item_is_a_condition_and_markup_is_no_rule() {
        // "(b) Deliver …" in a list of conditions binds like "(b) deliver …".
        let c =
            clause("(b) Deliver the spare keys within two days, and keep a copy of the receipt");
        assert_eq!(c.as_ref().map(|c| c.deontic), Some(Deontic::Obligation));
        assert_eq!(
            conflict(
                "We deliver the spare keys within five days.",
                "(b) Deliver the spare keys within two days, and keep a copy of the receipt"
            ),
            Some(AuditRule::OutOfRange)
        );
        // A numbered heading is not one.
        assert!(clause("1. Definitions of terms").is_none());
        // A code sample's words are no prohibition.
        assert!(clause("<!-- DO NOT EDIT! --> <comment>Key list</comment>").is_none());
        assert!(clause("<glob pattern=\"*.key\"/> must not be removed").is_none());
        // A placeholder path is prose.
        assert!(clause("Each application must install its file into <DATA>/packages.").is_some());
    }

    #[test]
    fn reads_obligations_prohibitions_and_permissions() {
        let c = clause("Host-specific configuration files must be installed in /etc/opt.");
        assert_eq!(c.as_ref().map(|c| c.deontic), Some(Deontic::Obligation));
        assert_eq!(
            c.map(|c| c.required_paths),
            Some(vec!["/etc/opt".to_owned()])
        );
        let c = clause("Don’t include any symbolic links in the distribution itself.");
        assert_eq!(
            c.as_ref().map(|c| (c.deontic, c.positive)),
            Some((Deontic::Prohibition, false))
        );
        let c = clause("You may charge a fee for the physical act of transferring a copy.");
        assert_eq!(c.map(|c| c.deontic), Some(Deontic::Permission));
        assert!(clause("The Work is provided as-is.").is_none());
        let c = clause(
            "Neither the name of the University nor the names of its contributors may be used to endorse or promote products derived from this software without specific prior written permission.",
        );
        assert_eq!(
            c.as_ref().map(|c| (c.deontic, c.positive)),
            Some((Deontic::Prohibition, false))
        );
    }

    #[test]
    fn prohibition_breached_only_when_the_statement_does_it() {
        // Abstaining from an act is not doing it.
        let rule = "A steward with an interest in a berth may join the debate on it, but must abstain from voting on it.";
        assert!(
            conflict(
                "A steward with an interest in a berth may vote on it once the interest is declared.",
                rule
            )
            .is_some()
        );
        assert_eq!(
            conflict(
                "A steward with an interest in a berth declares it and abstains from voting on it.",
                rule
            ),
            None
        );
        let rule = "Do not strip executables when installing them.";
        assert_eq!(
            conflict(
                "make install strips all executables to save disk space.",
                rule
            ),
            Some(AuditRule::ObligationNotMet)
        );
        assert_eq!(
            conflict(
                "make install keeps executables unstripped; we never strip executables when installing.",
                rule
            ),
            None
        );
        let rule = "Applications must never create or require special files or subdirectories in the root directory.";
        assert_eq!(
            conflict(
                "We also create a new top-level directory /acme in the root directory for caches.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
        assert_eq!(
            conflict(
                "Nothing is created as a directory in the root directory.",
                rule
            ),
            None
        );
    }

    #[test]
    fn negations_inside_a_framing_clause_do_not_turn_the_rule_or_the_statement() {
        // A purpose clause before the rule, a condition after it.
        let rule = "To make sure that nobody can reopen the safe, you should change its code after each shift.";
        let c = clause(rule);
        assert_eq!(
            c.as_ref().map(|c| (c.deontic, c.positive)),
            Some((Deontic::Obligation, true))
        );
        assert_eq!(
            conflict("Change the safe's code after each shift.", rule),
            None
        );
        let rule = "You should lock the archive room if the guard is not on duty.";
        assert_eq!(clause(rule).map(|c| c.positive), Some(true));
        assert_eq!(
            conflict("Lock the archive room when the guard is away.", rule),
            None
        );
        // An avoidance verb negates what it governs; a statement's own purpose clause does
        // not negate what it does.
        let rule = "Staff should avoid any use of shared archive accounts and use their own accounts instead.";
        assert_eq!(clause(rule).map(|c| c.positive), Some(false));
        assert_eq!(
            conflict(
                "Staff use the shared archive accounts so that no personal account is needed.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
    }

    #[test]
    fn content_clauses_prefixes_and_named_subjects_are_read_as_they_are_meant() {
        // What a rule asks to be stated is not what it forbids.
        let rule = "Contractors should state in the visitor log that they are not employees.";
        assert_eq!(clause(rule).map(|c| c.positive), Some(true));
        assert_eq!(
            conflict("The visitor log is a bound book kept at the desk.", rule),
            None
        );
        // A relative clause in the middle leaves the rest of the rule standing.
        let rule =
            "Every badge that a visitor wears, that carries a photo, must be returned at no cost.";
        assert_eq!(clause(rule).map(|c| c.positive), Some(false));
        // A concession after the rule does not turn it.
        let rule = "A copy of the key register should be kept in the safe, but it need not be if the office is closed.";
        assert_eq!(clause(rule).map(|c| c.positive), Some(true));
        // Nor does a purpose after a comma, or a clause after a semicolon.
        let rule = "Staff should answer every complaint as fast as they can, to give callers an early reply and prevent repeat calls; nevertheless they must take care not to promise refunds.";
        assert_eq!(clause(rule).map(|c| c.positive), Some(true));
        assert_eq!(
            conflict("Complaints are answered within two days.", rule),
            None
        );
        // Nor does the alternative a rule rules out.
        let rule =
            "Berth requests should be filed with the harbour clerk instead of being sent by post.";
        assert_eq!(clause(rule).map(|c| c.positive), Some(true));
        assert_eq!(
            conflict(
                "Berth requests are filed with the harbour clerk, who answers within a week.",
                rule
            ),
            None
        );
        // "un-" negates the word it prefixes.
        let rule = "Archive boxes should be stored sealed with the officer's stamp.";
        assert_eq!(
            conflict("Archive boxes are stored unsealed to save time.", rule),
            Some(AuditRule::ObligationNotMet)
        );
        assert_eq!(
            conflict(
                "Archive boxes are stored sealed with the officer's stamp.",
                rule
            ),
            None
        );
        // A demonstrative with its noun names the subject; alone, it points elsewhere.
        assert!(clause("This register must neither be copied nor be taken home.").is_some());
        assert!(clause("This must not be copied.").is_none());
        assert_eq!(
            conflict(
                "The register is taken home by the clerk every night.",
                "This register must neither be copied nor be taken home."
            ),
            Some(AuditRule::ProhibitionBreached)
        );
    }

    #[test]
    fn an_act_required_before_an_event_and_done_after_it_is_a_conflict() {
        let rule = "Before collecting any personal data, staff must, in every case, obtain the customer's written consent.";
        let c = clause(rule);
        assert!(
            c.as_ref().is_some_and(|c| c.before.contains("collect")),
            "{c:?}"
        );
        assert_eq!(
            conflict(
                "Staff collect the personal data at the counter and obtain written consent a week later.",
                rule
            ),
            Some(AuditRule::ObligationNotMet)
        );
        assert_eq!(
            conflict(
                "Staff obtain written consent after collecting the personal data.",
                rule
            ),
            Some(AuditRule::ObligationNotMet)
        );
        // Done first, or the event after the act: compliant.
        assert_eq!(
            conflict(
                "Staff obtain the customer's written consent before collecting personal data.",
                rule
            ),
            None
        );
        assert_eq!(
            conflict(
                "After obtaining written consent, staff collect the personal data.",
                rule
            ),
            None
        );
        // "Prior to" sets the same order as "before".
        let prior = "Tenants must return their parking permit prior to leaving the building.";
        assert!(
            clause(prior).is_some_and(|c| c.before.contains("leav")),
            "{:?}",
            clause(prior)
        );
        assert_eq!(
            conflict(
                "Tenants return their parking permit by post after leaving the building.",
                prior
            ),
            Some(AuditRule::ObligationNotMet)
        );
    }

    #[test]
    fn obligation_negated_is_a_conflict_and_double_negation_is_not() {
        let rule = "You must cause the modified files to carry prominent notices stating that you changed the files.";
        assert_eq!(
            conflict("Our changes are not marked in the modified files.", rule),
            Some(AuditRule::ObligationNotMet)
        );
        assert_eq!(
            conflict(
                "Every modified file carries a prominent notice that we changed it.",
                rule
            ),
            None
        );
        let rule = "Don’t delete old year numbers, though; they are significant.";
        assert_eq!(
            conflict("We never delete old year numbers from the notices.", rule),
            None
        );
        assert_eq!(
            conflict(
                "We delete old year numbers from the notices each year.",
                rule
            ),
            Some(AuditRule::ObligationNotMet)
        );
    }

    #[test]
    fn denying_a_capability_or_the_thing_a_rule_requires_breaks_it() {
        // "no way to" denies an act as "cannot" does.
        let rule = "Berth holders must be given the option to decline the winter haul-out.";
        assert_eq!(
            conflict(
                "The boatyard hauls every boat out in winter and gives berth holders no way to decline.",
                rule
            ),
            Some(AuditRule::ObligationNotMet)
        );
        assert_eq!(
            conflict(
                "Berth holders may decline the winter haul-out on the booking form.",
                rule
            ),
            None
        );
        // "no inspection is made" fails a rule that requires the inspection (spelled with or
        // without its hyphen), …
        let rule =
            "The crane operator must provide the ability to re-inspect the slings before lifting.";
        assert_eq!(
            conflict("No reinspection of the slings is made before a lift.", rule),
            Some(AuditRule::ObligationNotMet)
        );
        // … while an assurance of absence of something else is no failure.
        assert_eq!(
            conflict(
                "No boat is lifted before the slings are re-inspected by the crane operator.",
                rule
            ),
            None
        );
    }

    #[test]
    fn a_rule_ending_on_its_deontic_adjective_governs_its_subject() {
        let rule = "On the pontoons, wearing a life jacket is mandatory for every visitor.";
        let c = clause(rule).expect("a rule");
        assert_eq!(c.deontic, Deontic::Obligation);
        assert!(c.positive);
        assert_eq!(
            conflict("Visitors do not wear life jackets on the pontoons.", rule),
            Some(AuditRule::ObligationNotMet)
        );
        assert_eq!(
            conflict("Every visitor wears a life jacket on the pontoons.", rule),
            None
        );
    }

    #[test]
    fn a_word_a_rule_forbids_by_quoting_it_breaks_it_where_it_is_written() {
        let rule = "Never use “ferry” in the name of a private water taxi, as it suggests a public service.";
        assert_eq!(
            conflict("Our water taxi is named Harbour-Ferry-2.", rule),
            Some(AuditRule::ProhibitionBreached)
        );
        assert_eq!(
            conflict("Our water taxi is named Harbour Hopper.", rule),
            None
        );
        assert_eq!(
            conflict("We never put ferry in the name of our water taxi.", rule),
            None
        );
        // A quoted example in an obligation forbids nothing.
        assert!(
            clause("Each taxi must display the word “TAXI” on its bow.")
                .is_some_and(|c| c.forbidden_words.is_empty())
        );
    }

    #[test]
    fn a_location_the_general_rule_allows_is_not_held_to_its_exceptions() {
        let general = clause("Boats should be stored in /yard/winter or in a subdirectory of it.")
            .expect("a rule");
        let exception = clause(
            "The only exception is for racing dinghies (under 5 metres) which should be stored in /yard/winter/racks.",
        )
        .expect("a rule");
        let kept = statement("Our boats are stored in /yard/winter/north.");
        assert!(location_met(&kept, &[&general, &exception]));
        assert_eq!(
            check(&kept, &exception, 0.6).map(|c| c.rule),
            Some(AuditRule::WrongValue),
            "alone, the exception's location is not met"
        );
        let elsewhere = statement("Our boats are stored in /quay/east.");
        assert!(!location_met(&elsewhere, &[&general, &exception]));
    }

    #[test]
    fn a_field_set_to_another_value_than_a_rule_requires_breaks_it() {
        let rule =
            "For boats kept ashore over winter, “Cradle: steel” must be set on the berth card.";
        assert_eq!(
            conflict(
                "Boats kept ashore over winter have a berth card with Cradle: timber.",
                rule
            ),
            Some(AuditRule::WrongValue)
        );
        assert_eq!(
            conflict(
                "Boats kept ashore over winter have a berth card with Cradle: steel.",
                rule
            ),
            None
        );
        // A label opening a sentence sets nothing.
        assert!(labelled("Note: if the cradle is steel, check the welds.").is_empty());
    }

    #[test]
    fn out_of_range_and_wrong_values() {
        let rule = "b) accompany it with a written offer, valid for at least three years, to give any third party the source code.";
        assert_eq!(
            conflict(
                "You can ask us for the source code during the next 12 months.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Our written offer for the source code is valid for five years.",
                rule
            ),
            None
        );
        let rule = "Process identifier (PID) files, which were originally placed in /etc, must be placed in /run.";
        assert_eq!(
            conflict(
                "The daemon writes its PID file to /etc/acme/acmed.pid.",
                rule
            ),
            Some(AuditRule::WrongValue)
        );
        assert_eq!(
            conflict("The daemon's PID file is /run/acmed.pid.", rule),
            None
        );
        let rule =
            "Make sure that directories are world-readable and world-searchable (octal mode 755).";
        assert_eq!(
            conflict("Every directory in it is mode 777.", rule),
            Some(AuditRule::WrongValue)
        );
        assert_eq!(conflict("Every directory in it is mode 755.", rule), None);
        // The same rule as the GNU standards phrase it, after another requirement.
        let rule = "Make sure that all the files in the distribution are world-readable, and that directories\nare world-readable and world-searchable (octal mode 755).";
        assert_eq!(
            conflict(
                "The release tarball frobnicate-3.0.tar.gz contains symbolic links to shared headers, and every directory in it is mode 777 so that any user can extract it.",
                rule
            ),
            Some(AuditRule::WrongValue)
        );
    }

    #[test]
    fn pasted_text_is_found_after_a_blank_line_a_colon_or_in_quotes() {
        let body = "Our team ships the binaries without the notice to every customer.";
        assert_eq!(
            pasted_source(&format!("Audit this email against the licence.\n\n{body}")).as_deref(),
            Some(body)
        );
        assert_eq!(
            pasted_source(&format!("Audit this email:\n{body}")).as_deref(),
            Some(body)
        );
        assert_eq!(
            pasted_source(&format!("Check “{body}” against the licence")).as_deref(),
            Some(body)
        );
        assert_eq!(pasted_source("Audit this against those two"), None);
    }

    #[test]
    fn placeholders_match_one_path_component() {
        assert!(path_within("/opt/acme/bin", "/opt/<package>/bin"));
        assert!(path_within("/etc/opt/acme", "/etc/opt"));
        assert!(!path_within("/opt/acme/etc", "/etc/opt"));
    }

    #[test]
    fn a_name_that_does_not_fit_the_required_one_breaks_the_rule() {
        let rule = "Mooring buoys of the marina must have their buoy name prefixed with mb-.";
        assert_eq!(
            conflict("The new mooring buoy of the marina is named buoy-17.", rule),
            Some(AuditRule::WrongValue)
        );
        assert_eq!(
            conflict("The new mooring buoy of the marina is named mb-17.", rule),
            None
        );
        // Of two rules, the one the name fits decides.
        let general = clause("The buoy name of a mooring buoy should be named mb-foo.");
        let other = clause("The buoy name of a spare buoy should be named spare-foo.");
        let (Some(general), Some(other)) = (general, other) else {
            panic!("both are rules");
        };
        let named = statement("The mooring buoy is named mb-17.");
        assert!(name_met(&named, &[&general, &other]));
        assert!(!name_met(
            &statement("The mooring buoy is named buoy-17."),
            &[&general, &other]
        ));
    }

    #[test]
    fn a_prohibition_does_not_govern_the_rule_after_its_comma() {
        let rule = "Wet nets must not be left on the quay, they should be dried in the net shed \
                    and removed before the winter storms.";
        assert_eq!(
            conflict(
                "The nets are dried in the net shed and removed before the winter storms.",
                rule
            ),
            None
        );
        assert!(conflict("Wet nets are left on the quay overnight.", rule).is_some());
    }

    #[test]
    fn a_path_whose_hyphen_was_lost_at_a_line_end_is_the_same_path() {
        // "…/tide-" + "gauges" joined as "tidegauges" by the page's text.
        assert!(path_within(
            "/srv/quay/tide-gauges/north",
            "/srv/quay/tidegauges"
        ));
        assert!(path_within("/srv/quay/tidegauges", "/srv/quay/tide-gauges"));
        assert!(!path_within("/srv/quay/tide", "/srv/quay/tidegauges"));
    }

    #[test]
    fn unrelated_statements_never_conflict() {
        let rule = "Redistributions in binary form must reproduce the above copyright notice.";
        assert_eq!(
            conflict("The weather was fine and nobody complained.", rule),
            None
        );
    }

    #[test]
    fn only_the_rules_that_fit_a_statement_best_govern_it() {
        // Rules at 0.82, 0.70 and 0.40; a permission at 0.10 is always kept.
        let governs = governing(
            &[0.82, 0.70, 0.40, 0.10],
            &[false, false, false, true],
            &[false; 4],
            &[false; 4],
            &[false; 4],
        );
        assert_eq!(governs, [true, true, false, true]);
        assert!(governing(&[], &[], &[], &[], &[]).is_empty());
        // A narrow clause closer to the statement does not push the rule out of the margin.
        assert_eq!(
            governing(
                &[0.9, 0.6],
                &[false, false],
                &[true, false],
                &[false; 2],
                &[false; 2]
            ),
            [true, true]
        );
        // Without a full rule, the narrow clauses set the margin themselves.
        assert_eq!(
            governing(
                &[0.9, 0.6],
                &[false, false],
                &[true, true],
                &[false; 2],
                &[false; 2]
            ),
            [true, false]
        );
        // A rule about the statement's own act, or one that bounds what the statement
        // measures, governs it from further off when none of the closest does; a rule too far
        // off stays out.
        let none = [false; 3];
        let about_act = [false, true, false];
        let closest_too = [true, true, false];
        let bounding = [false, true, true];
        for (sims, acting, measuring, expected) in [
            ([0.82, 0.62, 0.62], about_act, none, [true, true, false]),
            ([0.82, 0.62, 0.62], closest_too, none, [true, false, false]),
            ([0.82, 0.62, 0.50], none, bounding, [true, true, false]),
            ([0.82, 0.62, 0.62], none, closest_too, [true, false, false]),
        ] {
            assert_eq!(
                governing(&sims, &none, &none, &acting, &measuring),
                expected,
                "{sims:?} {acting:?} {measuring:?}"
            );
        }
    }

    #[test]
    fn a_rule_with_one_measure_per_case_is_split_into_its_cases() {
        let rule = "Harbour staff inspect the moorings every week, and the breakwater every year.";
        let c = cases(rule);
        assert_eq!(c.len(), 2);
        assert_eq!(
            c[0].reading,
            "Harbour staff inspect the moorings every week"
        );
        // Read after the sentence's lead, so that it keeps the rule's subject and act.
        assert_eq!(
            c[1].reading,
            "Harbour staff inspect the moorings the breakwater every year"
        );
        // Each case is told by its own words, not its measure or the words of another case.
        assert!(c[1].own.iter().any(|t| t.starts_with("breakwater")));
        assert!(
            !c[1]
                .own
                .iter()
                .any(|t| t.starts_with("moor") || t.starts_with("year"))
        );
        assert!(c[0].own.iter().any(|t| t.starts_with("moor")));
        assert!(!c[0].own.iter().any(|t| t.starts_with("week")));
        let bounds = cases(
            "Passenger ferries are refuelled within two hours of docking, cargo ships within six hours.",
        );
        assert_eq!(bounds.len(), 2);
        assert_eq!(
            bounds[1].reading,
            "Passenger ferries are refuelled cargo ships within six hours"
        );
        // A statement is in the later case whose own words it names, else in the first.
        let owns: Vec<&HashSet<String>> = c.iter().map(|c| &c.own).collect();
        let of = |s: &str| case_of(&statement(s).terms, &owns);
        assert_eq!(of("The breakwater is inspected every two years."), Some(1));
        assert_eq!(
            of("Harbour staff inspect the moorings every fortnight."),
            Some(0)
        );
        assert_eq!(of("Bollards are painted every spring."), None);
        // The act alone does not tell the first case.
        assert_eq!(of("The slipway is inspected every day."), None);
        // One measure, or measures of two kinds, or no separator between them: no cases.
        assert!(cases("Moorings are inspected every week.").is_empty());
        assert!(cases("Moorings are inspected every week within two hours of a storm.").is_empty());
        assert!(cases("Fees are paid within 30 days or within 60 days.").is_empty());
    }

    #[test]
    fn rules_joined_by_and_bind_each_in_their_own_way() {
        let rule = "Guests must not feed the animals themselves, and must not close an open \
                    gate unless a keeper asks them to.";
        let pieces: Vec<&str> = rule_pieces(rule).into_iter().map(|p| p.text).collect();
        assert_eq!(
            pieces,
            [
                "Guests must not feed the animals themselves",
                "must not close an open gate unless a keeper asks them to."
            ]
        );
        let read: Vec<Option<AuditRule>> = pieces
            .iter()
            .map(|p| {
                conflict(
                    "Guests leave the gate open and do not feed the animals themselves.",
                    p,
                )
            })
            .collect();
        assert_eq!(read, [None, None]);
        // "and" without a new modal joins the objects of one rule.
        assert_eq!(
            rule_pieces("Guests must wash and dry their hands.").len(),
            1
        );
        // "and then": a second act under the first one's modal.
        let two =
            rule_pieces("At closing, the keeper shall feed the seals and then lock the pool.");
        assert_eq!(
            two.iter().map(|p| p.reading.as_str()).collect::<Vec<_>>(),
            [
                "At closing, the keeper shall feed the seals",
                "At closing, the keeper shall lock the pool."
            ]
        );
        assert_eq!(
            conflict("At closing the keeper feeds the seals.", &two[0].reading),
            None
        );
    }

    #[test]
    fn a_text_that_raises_the_threshold_of_a_rule_narrows_it() {
        let rule = "Every parcel heavier than 2 kilograms and worth more than 80 dollars must be \
                    signed for by the recipient.";
        assert_eq!(
            conflict(
                "Parcels are signed for by the recipient only when worth more than 300 dollars.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Parcels worth more than 50 dollars are signed for by the recipient.",
                rule
            ),
            None
        );
        // "No more than" is a bound, not a threshold.
        assert!(thresholds("Parcels may weigh no more than 30 euros in fees.").is_empty());
        assert_eq!(
            quantities("a fee of 45 euros")
                .into_iter()
                .map(|(_, v, d)| (v, d))
                .collect::<Vec<_>>(),
            [(45.0, Dimension::Money)]
        );
    }

    #[test]
    fn a_schedule_line_states_its_period_exactly_and_for_its_own_subject_only() {
        let line = "Visitor badges are kept for 3 months and then shredded.";
        let c = clause(line);
        assert_eq!(c.as_ref().map(|c| c.deontic), Some(Deontic::Obligation));
        assert_eq!(
            conflict("Visitor badges are kept for one year.", line),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict("Visitor badges are kept for 3 months.", line),
            None
        );
        // Another line of the schedule is not this one's business.
        assert_eq!(
            conflict("Parking permits are kept for one year.", line),
            None
        );
        // With a modal, the period is a minimum.
        let rule = "Visitor badges must be retained for 3 months.";
        assert_eq!(
            conflict("Visitor badges are retained for one year.", rule),
            None
        );
        assert_eq!(
            conflict("Visitor badges are retained for two weeks.", rule),
            Some(AuditRule::OutOfRange)
        );
    }

    #[test]
    fn a_statement_meets_a_clause_polarity_only_when_it_names_the_act() {
        let rule = "The museum shall not lend historic paintings to galleries outside the country.";
        assert_eq!(
            conflict("Historic paintings stay in the country's galleries.", rule),
            None
        );
        assert_eq!(
            conflict(
                "The museum lends historic paintings to galleries abroad.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
        // A condition with a subject of its own governs its verb, not its subject.
        let rule = "Guests may bring a dog, provided that the dog does not enter the kitchen.";
        assert_eq!(
            conflict("Guests bring a dog, which the house rules allow.", rule),
            None
        );
        // A word derived from the act names it.
        let rule = "Wardens must not accept tips from visitors.";
        assert_eq!(
            conflict("Tips from visitors are acceptable for wardens.", rule),
            Some(AuditRule::ProhibitionBreached)
        );
        // An adverb before the verb is not the act: the verb after it is.
        let rule = "A steward must not simultaneously chair the audit panel.";
        assert_eq!(
            conflict("A steward may also chair the audit panel.", rule),
            Some(AuditRule::ProhibitionBreached)
        );
        assert!(permits("A steward may also chair the audit panel."));
        assert!(!permits("A steward never chairs the audit panel."));
    }

    #[test]
    fn a_price_for_what_a_rule_gives_free_breaks_it() {
        let rule = "The first replacement badge shall be issued free of charge.";
        assert_eq!(
            conflict(
                "Every replacement badge, the first included, costs 15 dollars.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
        assert_eq!(
            conflict("The first replacement badge is issued at no cost.", rule),
            None
        );
    }

    #[test]
    fn a_deadline_whose_missing_ends_a_right_holds_whatever_the_polarity() {
        let rule = "The berth is withdrawn without further notice if the holder fails to pay the \
                    mooring fee within 14 days of the invoice.";
        assert_eq!(
            conflict(
                "Holders pay the mooring fee within 30 days of the invoice.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Holders pay the mooring fee within 10 days of the invoice.",
                rule
            ),
            None
        );
        assert!(clause(rule).is_some_and(|c| c.bounds.iter().any(|b| b.cap)));
        // A failure far from the bound is another matter.
        assert!(!missed_deadline(
            "if the holder fails to pay, the harbour master may, "
        ));
    }

    #[test]
    fn a_deadline_on_which_a_right_lasts_holds_whatever_the_polarity() {
        let rule = "If the berth is not in use, the holder's permit can still continue if the \
                    holder returns the boat to its mooring within 14 days of a notice.";
        assert_eq!(
            conflict(
                "Holders return their boats to the mooring within 30 days of a notice.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Holders return their boats to the mooring within 7 days of a notice.",
                rule
            ),
            None
        );
        assert!(kept_by_deadline(
            "you may keep the berth by paying the arrears "
        ));
        // A right kept for reasons that are no condition is another matter.
        assert!(!kept_by_deadline(
            "the club keeps the records of every launch and of each repair made "
        ));
    }

    #[test]
    fn a_rule_that_says_may_never_forbids() {
        let rule = "A skipper may never sign off the log of a trip they crewed themselves.";
        assert_eq!(clause(rule).map(|c| c.deontic), Some(Deontic::Prohibition));
        assert_eq!(
            conflict(
                "A skipper may sign off the log of a trip they crewed once the boat is moored.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
        assert_eq!(
            conflict(
                "Logs are signed off by a skipper who was not on board.",
                rule
            ),
            None
        );
    }

    #[test]
    fn a_count_a_rule_requires_is_the_least_it_accepts() {
        let rule = "Withdrawals from the reserve fund require the signatures of two trustees.";
        assert_eq!(clause(rule).map(|c| c.deontic), Some(Deontic::Obligation));
        assert_eq!(
            conflict(
                "Withdrawals from the reserve fund are paid out once one trustee signs.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Withdrawals from the reserve fund are paid out once three trustees sign.",
                rule
            ),
            None
        );
        // A day of the calendar counts nothing, nor does a count a comparison word leads.
        let due = "Berth fees must be paid by 31 March each year.";
        assert_eq!(
            conflict("Berth fees are paid by 15 March each year.", due),
            None
        );
        let short = "A berth name should be short, certainly under 20 letters.";
        assert_eq!(conflict("The berth name is 12 letters long.", short), None);
        // An absence joined to what is required is a second condition.
        let both = "Withdrawals require the signatures of two trustees and no objection from the \
                    treasurer.";
        assert_eq!(clause(both).map(|c| c.positive), Some(true));
        assert_eq!(
            conflict(
                "Withdrawals are paid out once two trustees sign and the treasurer does not object.",
                both
            ),
            None
        );
    }

    #[test]
    fn a_statement_that_keeps_to_the_exception_keeps_the_rule() {
        let rule = "Skippers must not moor at the fuel pontoon unless the harbour master agrees.";
        assert_eq!(
            conflict(
                "Skippers moor at the fuel pontoon only when the harbour master has agreed.",
                rule
            ),
            None
        );
        assert_eq!(
            conflict(
                "Skippers moor at the fuel pontoon whenever the berths are full.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
        assert_eq!(
            conflict(
                "Skippers moor at the fuel pontoon only when the weather turns.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
    }

    #[test]
    fn a_statement_that_makes_a_required_thing_optional_fails_the_rule() {
        let rule = "Life jackets must be worn on the outer pontoons.";
        assert_eq!(
            conflict("Life jackets are optional on the outer pontoons.", rule),
            Some(AuditRule::ObligationNotMet)
        );
        assert_eq!(
            conflict("Life jackets are worn on the outer pontoons.", rule),
            None
        );
    }

    #[test]
    fn only_a_permission_of_the_act_or_the_measure_clears_a_number_out_of_range() {
        let kept = clause("Signed berth contracts must stay on file at least six years.");
        let drafts = clause("Draft contracts need not be signed by the harbour master.");
        let shorter = clause("Contracts of day visitors may stay on file two years.");
        let moved = clause("Signed berth contracts may stay in the harbour office.");
        let (Some(kept), Some(drafts), Some(shorter), Some(moved)) = (kept, drafts, shorter, moved)
        else {
            panic!("each is a rule");
        };
        assert!(!allows_range(&kept, &drafts));
        assert!(allows_range(&kept, &shorter));
        assert!(allows_range(&kept, &moved));
    }

    #[test]
    fn a_size_of_data_is_compared_in_bytes_and_less_than_is_a_most() {
        let rule = "Attachments to the harbour newsletter must be less than about 200 kB.";
        assert_eq!(
            conflict(
                "Attachments to the harbour newsletter may be up to 2 MB.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Attachments to the harbour newsletter are kept under 150 kB.",
                rule
            ),
            None
        );
        let least = "Each crew must have no fewer than three members.";
        assert_eq!(clause(least).map(|c| c.bounds[0].minimum), Some(true));
    }

    #[test]
    fn an_obligation_denied_exempts() {
        for rule in [
            "Dinghies that stay under a week do not need to be registered.",
            "A guest is not required to sign the visitors' book.",
        ] {
            assert_eq!(clause(rule).map(|c| c.deontic), Some(Deontic::Permission));
        }
        assert_eq!(
            conflict(
                "Dinghies that stay three days are never registered.",
                "Dinghies that stay under a week do not need to be registered."
            ),
            None
        );
    }

    #[test]
    fn an_act_done_without_something_is_still_done() {
        let rule = "Dinghies must never be launched from the fuel pontoon.";
        assert_eq!(
            conflict(
                "Dinghies may be launched from the fuel pontoon without a booking.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
        assert_eq!(
            conflict(
                "No dinghy is launched from the fuel pontoon, with or without a booking.",
                rule
            ),
            None
        );
        assert!(does_before_without(
            "boats are launched without a permit",
            &terms("launch")
        ));
        assert!(!does_before_without(
            "boats are never launched without a permit",
            &terms("launch")
        ));
        // Against an obligation, going without is failing it.
        assert_eq!(
            conflict(
                "Hulls are painted without antifouling.",
                "Hulls must be painted with antifouling."
            ),
            Some(AuditRule::ObligationNotMet)
        );
    }

    #[test]
    fn a_time_nobody_acts_within_is_a_least_wait() {
        let rule = "If no member protests within 14 days of the notice, the harbour master shall let \
                    the berth to the next person on the list.";
        let bound = clause(rule)
            .and_then(|c| c.bounds.first().cloned())
            .map(|b| (b.minimum, b.cap));
        assert_eq!(bound, Some((true, true)));
        assert_eq!(
            conflict(
                "A berth is let to the next person on the list when nobody has objected for 5 days.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "A berth is let to the next person on the list when nobody has objected for 21 days.",
                rule
            ),
            None
        );
        assert!(waited("if no member asks for a vote "));
        assert!(!waited("if the member pays the fee "));
        assert!(!waited("motif nobody "));
    }

    #[test]
    fn what_is_done_after_a_time_is_done_no_sooner() {
        let schedule = "Idle dinghies on the rack: moved to the compound after 30 days.";
        assert_eq!(
            conflict(
                "Idle dinghies on the rack are moved to the compound after 10 days.",
                schedule
            ),
            Some(AuditRule::OutOfRange)
        );
        // A schedule states when: later is another schedule.
        assert_eq!(
            conflict(
                "Idle dinghies on the rack are moved to the compound after 45 days.",
                schedule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Idle dinghies on the rack are moved to the compound after 30 days.",
                schedule
            ),
            None
        );
        // A rule sets the least wait: later keeps it.
        let required = "Abandoned boats must be scrapped after six months ashore.";
        assert_eq!(
            conflict(
                "Abandoned boats are scrapped after two months ashore.",
                required
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Abandoned boats are scrapped after nine months ashore.",
                required
            ),
            None
        );
        // A prohibition's time is no wait of its own.
        let forbidden = " boats must not be moved after 6 months ";
        assert!(waits_after(forbidden, Deontic::Prohibition, false).is_empty());
    }

    #[test]
    fn a_share_an_obligation_asks_for_is_the_least_it_accepts() {
        let rule = "Every mooring chain must have 100% of its links inspected each spring.";
        assert_eq!(
            conflict(
                "Mooring chains must have at least 80% of their links inspected each spring.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Every mooring chain has 100% of its links inspected each spring.",
                rule
            ),
            None
        );
        // A share a bound word reads is that bound's only.
        let capped = clause("Moorings must be let at no more than 90% of the berths.");
        assert_eq!(
            capped.map(|c| c.bounds.iter().filter(|b| b.minimum).count()),
            Some(0)
        );
    }

    #[test]
    fn a_ban_until_an_event_binds_only_a_text_that_names_the_event() {
        let rule = "No boat may leave the basin until the lock keeper opens the gate.";
        assert_eq!(
            conflict(
                "Boats leave the basin before the lock keeper opens the gate.",
                rule
            ),
            Some(AuditRule::ProhibitionBreached)
        );
        assert_eq!(conflict("Boats leave the basin at high tide.", rule), None);
    }

    #[test]
    fn a_count_capped_per_period_is_a_least_interval_and_no_ban_on_the_act() {
        let cap = "There should not be more than two launches per week from the public slipway.";
        assert_eq!(
            conflict(
                "The club launches boats from the public slipway every day.",
                cap
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Boats are launched from the public slipway once a week.",
                cap
            ),
            None
        );
        // One shared word is enough for a statement that measures what the clause bounds.
        let daily = statement("Boats go down the slipway daily.");
        assert!(check(&daily, &rule(cap), MEASURED_TOPIC).is_some());
        assert!(check(&daily, &rule(cap), MEASURED_TOPIC - 0.1).is_none());
        // A cap on what an act is done to keeps the act's polarity.
        assert!(!rule("Crews must not accept tips worth more than 20 euros.").without_polarity);
    }

    #[test]
    fn a_no_charge_copy_is_given_free() {
        let rule = "Each berth holder must be given a no-charge copy of the tide tables.";
        assert!(clause(rule).is_some_and(|c| c.free_of_charge));
        assert_eq!(
            conflict("Berth holders pay 8 euros for the tide tables.", rule),
            Some(AuditRule::ProhibitionBreached)
        );
    }

    #[test]
    fn a_number_written_in_words_and_in_digits_is_read_once() {
        let rule = rule("A skipper may moor at the visitor pontoon for up to fourteen (14) days.");
        let got: Vec<(f64, Dimension)> = rule
            .bounds
            .iter()
            .map(|b| (b.value, b.dimension.clone()))
            .collect();
        assert_eq!(got, [(14.0, Dimension::Time)]);
        assert_eq!(
            statement("Boats may stay at the pontoon for twenty (20) days.").quantities,
            [("twenty days".to_owned(), 20.0, Dimension::Time)]
        );
        // What the statement says stays as written.
        assert_eq!(
            statement("Boats leave within two (2) days.").text,
            "Boats leave within two (2) days."
        );
    }

    #[test]
    fn a_clause_naming_its_own_document_does_not_share_that_name_with_a_statement() {
        let c = rule("The holder may not use the name of this Charter for any other club.");
        assert!(!c.scope.contains("charter"));
        assert!(c.scope.contains("club"));
        // A statement that names the document it is checked against refers to it.
        let names = crate::agent::rules::extractive::stems("Harbour Mooring Charter");
        assert_eq!(
            without_document_name(
                "Our moorings are let under the Harbour Mooring Charter.",
                &names
            )
            .as_deref(),
            Some("Our moorings are let under the .")
        );
        // In lower case the name's words say what is done.
        assert_eq!(
            without_document_name("Every mooring is inspected by the harbour master.", &names),
            None
        );
    }

    #[test]
    fn recurrences_are_intervals_in_days() {
        let got: Vec<f64> = intervals(
            "Filters are changed twice a year, floors mopped daily, bins emptied every 3 weeks \
             and the roof inspected at the end of each quarter.",
        )
        .into_iter()
        .map(|(_, d)| d)
        .collect();
        assert_eq!(got, [182.5, 1.0, 21.0, 91.3]);
        let got: Vec<f64> = intervals(
            "Members vote once in each calendar year and elect a chair every second year; the \
             hall is open 24 hours a day and dues rise by 2% per year.",
        )
        .into_iter()
        .map(|(_, d)| d)
        .collect();
        assert_eq!(got, [365.0, 730.0]);
    }

    #[test]
    fn a_deadline_is_missed_by_an_interval_longer_than_it_and_a_schedule_by_a_rarer_one() {
        let deadline =
            "Every damaged locker must be reported to the facilities desk within 5 days.";
        assert_eq!(
            conflict(
                "Damaged lockers are reported to the facilities desk at the end of each month.",
                deadline
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Damaged lockers are reported to the facilities desk every day.",
                deadline
            ),
            None
        );
        // A recurrence the rule names itself frames its deadline.
        let framed =
            "The caretaker must send the meter readings within 5 days after the end of each month.";
        assert_eq!(
            conflict(
                "The caretaker sends the meter readings within 3 days after the end of each month.",
                framed
            ),
            None
        );
        let schedule = "The fire alarms must be tested by the caretaker every week.";
        assert_eq!(
            conflict("The caretaker tests the fire alarms monthly.", schedule),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict("The caretaker tests the fire alarms daily.", schedule),
            None
        );
    }

    #[test]
    fn a_text_that_permits_more_than_a_permission_allows_breaks_its_limit() {
        let limit = "Members may borrow library books for up to 21 days without renewing them.";
        assert_eq!(
            conflict(
                "Members can keep borrowed library books for up to 30 days without renewing.",
                limit
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Members can keep borrowed library books for 14 days.",
                limit
            ),
            None
        );
        let yearly = "Tenants may repaint their flat once in each tenancy year.";
        assert_eq!(
            conflict("Tenants may repaint their flat twice a year.", yearly),
            Some(AuditRule::OutOfRange)
        );
        // A text that restricts rather than grants says nothing against a permission.
        assert_eq!(
            conflict(
                "Members may not keep borrowed library books for 30 days.",
                limit
            ),
            None
        );
    }

    #[test]
    fn a_period_a_clause_states_or_allows_is_a_bound() {
        let exact = |t: &str| {
            let c = clause(t).unwrap_or_else(|| panic!("no clause: {t}"));
            let mut b: Vec<(bool, f64)> = c.bounds.iter().map(|b| (b.minimum, b.value)).collect();
            b.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
            b
        };
        // Stated: exactly that long.
        assert_eq!(
            exact("The club treasurer holds office for two years."),
            vec![(false, 730.0), (true, 730.0)]
        );
        // Allowed: at most that long.
        assert_eq!(
            exact("During the first week any guest may book a lane."),
            vec![(false, 7.0)]
        );
        // A change it may be made by is no bound of the period itself.
        assert_eq!(
            exact("The trial lasts 10 days, but may be extended by up to 5 days by the judge."),
            Vec::<(bool, f64)>::new()
        );
        // A subject "no" quantifies is forbidden, whatever the period.
        let c = clause("After the bell no new bids can be placed for ten minutes.");
        assert_eq!(
            c.map(|c| (c.deontic, c.bounds.len())),
            Some((Deontic::Prohibition, 0))
        );
        // A hyphenated quantity of a statement is read.
        let s = statement("Members vote in a one-week ballot.");
        assert_eq!(s.quantities.first().map(|q| q.1), Some(7.0));
        // A period named by its purpose binds as one after "for" does.
        assert_eq!(
            exact("Berth holders must give a notice period of three months."),
            vec![(true, 3.0 * 30.4)]
        );
        // An article counts one unit of time, and nothing else.
        assert_eq!(
            exact("Hull surveys must stay on file at least a year after the sale."),
            vec![(true, 365.0)]
        );
        assert_eq!(
            exact("Skippers must report damage within a reasonable time."),
            Vec::<(bool, f64)>::new()
        );
        let c = clause("Fuel must be ordered at least a week before the regatta.");
        assert_eq!(
            c.map(|c| c
                .bounds
                .iter()
                .map(|b| (b.text.clone(), b.dimension.clone()))
                .collect()),
            Some(vec![("at least a week".to_owned(), Dimension::Lead)])
        );
    }

    #[test]
    fn an_exception_that_points_to_other_provisions_defers_and_one_for_a_purpose_binds() {
        assert!(clause("Moorings must not be sublet except as provided in clause 9.").is_none());
        assert!(clause("Moorings must not be sublet except as otherwise set out below.").is_none());
        let bound = clause("Hull paint must not be altered except as required to repair it.");
        assert_eq!(bound.map(|c| c.deontic), Some(Deontic::Prohibition));
        // ... and a text that alters it freely breaks it (patching is altering).
        let c = clause("Hull paint must not be modified except as required to repair it.");
        let s = statement("We patch the hull paint freely to add a logo.");
        assert!(c.is_some_and(|c| check(&s, &c, 0.6).is_some()));
    }

    #[test]
    fn a_purpose_of_avoiding_something_is_no_negation_of_the_rule() {
        let c = rule("Fuel cans should be stowed in the deck locker to avoid spills.");
        assert!(c.positive);
        let kept = statement("Fuel cans are stowed in the deck locker.");
        assert!(check(&kept, &c, 0.7).is_none());
        let broken = statement("Fuel cans are not stowed in the deck locker.");
        assert!(check(&broken, &c, 0.7).is_some());
    }

    #[test]
    fn what_a_rule_keeps_apart_a_text_keeps_together() {
        let c = rule("Spare keys must hang on different hooks from the boat keys.");
        let together = statement("Spare keys hang on the same hook as the boat keys.");
        assert_eq!(
            check(&together, &c, 0.7).map(|x| x.summary),
            Some("The text uses the same hook where the clause requires them to differ".into())
        );
        let apart = statement("Spare keys hang on a hook of their own.");
        assert!(check(&apart, &c, 0.7).is_none());
        // "Another person" is kept apart from "the same person".
        let c = rule("Each fuel invoice must be approved by another person than its buyer.");
        let same = statement("The same person buys the fuel and approves the fuel invoice.");
        assert!(check(&same, &c, 0.7).is_some());
        // What things share they do not keep apart.
        let c = rule("Every dinghy should be kept on a separate trailer.");
        let shared_ = statement("The club dinghies share one trailer.");
        assert!(check(&shared_, &c, 0.7).is_some());
    }

    #[test]
    fn an_impersonal_frame_opens_a_rule_and_always_precedes_its_act() {
        let c = rule("It is recommended that crews always wear a buoyancy aid on the pontoons.");
        assert_eq!(c.deontic, Deontic::Obligation);
        assert!(!c.strong);
        assert!(c.act.contains("wear"));
        let c = rule("It is essential that the gate is locked at dusk.");
        assert!(c.strong);
        // "It" that points back to an earlier sentence opens no rule.
        assert!(clause("It should be locked at dusk.").is_none());
    }

    #[test]
    fn a_rule_to_stop_or_disable_something_wants_it_absent() {
        let c = rule("You should disable the guest wifi outside office hours.");
        assert!(!c.positive);
        let off = statement("The guest wifi is disabled outside office hours.");
        assert!(check(&off, &c, 0.7).is_none());
        let on = statement("The guest wifi stays enabled outside office hours.");
        assert!(check(&on, &c, 0.7).is_some());
        // A negation after the removal verb belongs to what follows it.
        assert!(!positive(
            " disable the guest wifi if the office is not staffed "
        ));
        assert!(positive(" never disable the alarm "));
    }

    #[test]
    fn a_required_location_may_be_quoted_and_have_alternatives() {
        let c = rule(
            "You should store charts compiled by hand in ”/srv/charts” or ”/opt/charts” to avoid mixing them with the printed ones.",
        );
        assert_eq!(c.required_paths, vec!["/srv/charts", "/opt/charts"]);
        let elsewhere =
            statement("Charts compiled by hand are stored over the printed ones in /var/charts.");
        assert!(check(&elsewhere, &c, 0.7).is_some());
        let inside = statement("Charts compiled by hand are stored in /opt/charts.");
        assert!(check(&inside, &c, 0.7).is_none());
    }

    #[test]
    fn adding_something_to_a_list_includes_it() {
        let c = rule("Do not include guest boats in the berth register.");
        let added = statement("We add guest boats to the berth register every evening.");
        assert!(check(&added, &c, 0.6).is_some());
    }

    #[test]
    fn a_rule_and_the_exception_it_makes_are_two_rules() {
        let sentence = "Hulls should be washed on every weekday, but never on a race day.";
        let pieces = rule_pieces(sentence);
        let read: Vec<(&str, &str)> = pieces
            .iter()
            .map(|p| (p.text, p.reading.as_str()))
            .collect();
        assert_eq!(
            read,
            vec![
                (
                    "Hulls should be washed on every weekday",
                    "Hulls should be washed on every weekday"
                ),
                (
                    "never on a race day.",
                    "Hulls should not be washed on a race day."
                ),
            ]
        );
        assert_eq!(pieces[1].offset, sentence.find("never").unwrap_or_default());
        // The exception forbids what the text does.
        let exception = clause(&pieces[1].reading);
        let s = statement("Our hulls are washed on race days.");
        assert!(exception.is_some_and(|c| check(&s, &c, 0.6).is_some()));
        // No exception without a phrase, nor after a rule that forbids.
        assert_eq!(
            rule_pieces("Guests may bring drinks, but not glass bottles.").len(),
            1
        );
        assert_eq!(
            rule_pieces("Boats must not be left on the slip, but not in the yard either.").len(),
            1
        );
    }

    #[test]
    fn a_permission_that_allows_less_still_bounds_what_it_allows() {
        let Some(rule) = clause("Hull survey logs must stay on file at least six years.") else {
            panic!("no rule");
        };
        let s = statement("We keep hull survey logs for two years.");
        assert!(beyond_permission(
            &s,
            &rule,
            "Logs of dinghies may be kept for a period of four years."
        ));
        assert!(!beyond_permission(
            &s,
            &rule,
            "Logs of dinghies may be kept for a period of one year."
        ));
        assert!(!beyond_permission(
            &s,
            &rule,
            "Logs of dinghies may be kept as the harbour master decides."
        ));
    }

    #[test]
    fn headings_of_the_audited_text_are_not_statements() {
        let source = "Expense claims\n\nStaff submit expense claims within 60 days of travel.";
        let texts: Vec<String> = statements(source).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            ["Staff submit expense claims within 60 days of travel."]
        );
    }

    #[test]
    fn a_bound_worded_with_a_negation_still_binds() {
        // The "not" of "not less than" negates nothing: the rule requires what it governs.
        for (rule, departs, meets) in [
            (
                "Mooring logs shall be kept for not less than five years.",
                "We keep mooring logs for two years.",
                "We keep mooring logs for six years.",
            ),
            (
                "A berth holder must pay the winter fee no later than 30 days after the invoice.",
                "Berth holders pay the winter fee within 45 days after the invoice.",
                "Berth holders pay the winter fee within 20 days after the invoice.",
            ),
        ] {
            assert_eq!(clause(rule).map(|c| c.positive), Some(true), "{rule}");
            assert_eq!(
                conflict(departs, rule),
                Some(AuditRule::OutOfRange),
                "{departs}"
            );
            assert_eq!(conflict(meets, rule), None, "{meets}");
        }
    }

    #[test]
    fn the_size_of_a_body_is_exact_and_meets_only_a_size() {
        // Stated without a modal, a body's size is a rule of the text: fewer and more depart.
        let rule = "The harbour board consists of seven trustees.";
        let c = clause(rule);
        assert_eq!(c.as_ref().map(|c| c.deontic), Some(Deontic::Obligation));
        let sizes: Vec<(bool, f64)> = c
            .iter()
            .flat_map(|c| &c.bounds)
            .filter(|b| b.dimension == Dimension::Size(text::stem("trustees")))
            .map(|b| (b.minimum, b.value))
            .collect();
        assert_eq!(sizes, [(true, 7.0), (false, 7.0)]);
        for departs in [
            "The harbour board has nine trustees.",
            "Our harbour board is made up of five trustees.",
        ] {
            assert_eq!(
                conflict(departs, rule),
                Some(AuditRule::OutOfRange),
                "{departs}"
            );
        }
        assert_eq!(
            conflict("The harbour board has seven trustees.", rule),
            None
        );
        // Trustees doing something are no size of the board.
        assert_eq!(
            conflict(
                "Two trustees of the harbour board sign every mooring lease.",
                rule
            ),
            None
        );
        // A bounded size with a modal binds the same way.
        let rule = "The moorings committee shall consist of not less than three members.";
        assert_eq!(
            conflict("The moorings committee has two members.", rule),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Two members of the moorings committee inspect the pontoons.",
                rule
            ),
            None
        );
        // A plain count is still held against a size the text gives.
        assert_eq!(
            conflict(
                "Each boat name has 40 letters.",
                "A boat name must be no more than 30 letters."
            ),
            Some(AuditRule::OutOfRange)
        );
    }

    #[test]
    fn a_threshold_a_rule_forbids_and_a_time_given_for_an_act_are_the_most_allowed() {
        let rule = "A parcel must not weigh more than 30 kilograms.";
        assert_eq!(
            conflict("We send parcels of 40 kilograms to the depot.", rule),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict("We send parcels of 20 kilograms to the depot.", rule),
            None
        );
        let rule = "A parcel cannot be heavier than 30 kilograms.";
        assert_eq!(clause(rule).map(|c| c.deontic), Some(Deontic::Prohibition));
        assert_eq!(
            conflict("Each parcel weighs 45 kilograms.", rule),
            Some(AuditRule::OutOfRange)
        );
        let rule = "The tenant has 14 days to object to a rent increase.";
        assert_eq!(
            conflict("Tenants get one month to object to a rent increase.", rule),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict("Tenants get 10 days to object to a rent increase.", rule),
            None
        );
        // An item of a list reads as a rule of its own.
        assert_eq!(
            item_reading("- It must not exceed two pages."),
            "The item must not exceed two pages."
        );
        assert_eq!(item_reading("- Bring a torch."), "- Bring a torch.");
    }

    #[test]
    fn a_notice_given_before_an_event_compares_only_with_another_notice() {
        // A practice a policy states without a modal, opened by an adverb.
        let rule = "Roughly ten days before the annual meeting, we send the agenda to members.";
        assert_eq!(
            conflict(
                "Members get the agenda two days before the annual meeting.",
                rule
            ),
            Some(AuditRule::OutOfRange)
        );
        assert_eq!(
            conflict(
                "Members get the agenda two weeks before the annual meeting.",
                rule
            ),
            None
        );
        let rule = "Repair works shall be announced at least five working days in advance.";
        assert_eq!(
            conflict("Repair works are announced one working day ahead.", rule),
            Some(AuditRule::OutOfRange)
        );
        // How long something lasts is no notice period.
        let rule = "Voting opens three weeks before the seat falls vacant.";
        assert_eq!(
            conflict(
                "Voting lasts for one week and opens three weeks before the seat falls vacant.",
                rule
            ),
            None
        );
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(crate::agent::rules::all_compile(&[
            &PATH,
            &REQUIRED_PATH,
            &OR_PATH,
            &NEXT_RULE,
            &LABELLED,
            &FIELD,
            &BOUND,
            &TIME_TO,
            &LEAD_TIME,
            &QUANTITY,
            &EXEMPT_UP_TO,
            &LIST_ITEM,
            &DOT_LABEL,
            &QUOTED,
            &MARKER,
            &ITEM,
            &CONDITION,
            &MARKUP,
            &MODAL_COMMA,
            &PERIOD,
            &CONJOINED_RULE,
            &EXCEPTED,
            &RULE_MODAL,
            &THRESHOLD,
            &RETAINED_FOR,
            &FOR_PERIOD,
            &AFTER_PERIOD,
            &NO_SUBJECT,
            &DEFERS,
            &APART,
            &SAME,
            &SIZE,
            &SIZE_BEFORE,
            &SIZE_STATED_BEFORE
        ]));
    }
}
