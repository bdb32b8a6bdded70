//! The values a question asks for ("how many days", "how often", "what fee") and whether a
//! text holds one.
//!
//! One mechanism instead of one rule per question shape: a question is split into its asks
//! (at "?", ";" and at "and"/"or" that open a new question: "…, and how do they …"); an ask's
//! interrogative names the kind of value it wants by the unit after "how many/much", by "how
//! long/often", or by the head noun after "what (is the)…" looked up in one table of value
//! nouns. Every other ask is *open* (a why/who/what-does question answered by prose). A text
//! holds a value of a kind when it has a number with a unit of that kind, or a word that
//! states one ("annually", "free of charge").
//!
//! Owns: the value kinds, the value-noun table, reading asks, value detectors.
//! Must not: decide refusal (Inquire does, from [`Asks::unmet`]), call models or stores.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::extractive::stems;
use super::lexicon;
use super::text::{content_terms, stem, without_clause_number};
use super::{Pattern, matches, regex};

/// What kind of value an ask wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A length of time: a number with a unit of time ("72 hours", "seven years").
    Duration,
    /// A frequency: "every 90 days", "annually", "twice a year".
    Frequency,
    /// An amount of money: "$50", "USD 10,000", "free of charge".
    Money,
    /// A number or a numeric code: a count, a percentage, a size, a mode ("1777").
    Number,
    /// A length or a length of time ("how long"): a number, or a time bounded by an event
    /// ("until the lease ends", "for the day of issue").
    Extent,
    /// A named party ("Which bank …", "What insurer …"): a name, written with a capital
    /// inside a sentence ("Harbour Mutual", "KPMG").
    Name,
    /// A date ("On what date …", "By what date …"): a day of the calendar ("31 January",
    /// "2024-03-01", "Friday"), or a time counted from an event ("within 30 days of joining").
    Date,
    /// A version ("What is the minimum firmware version?"): a number, dotted as versions are
    /// ("3.7.1", "9.x"), where a number of a count would not be read as a clause reference.
    Version,
}

impl Kind {
    /// How a refusal names what is missing.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Duration => "a duration",
            Self::Frequency => "a frequency",
            Self::Money => "an amount of money",
            Self::Number => "a number",
            Self::Extent => "a length or a duration",
            Self::Name => "a name",
            Self::Date => "a date",
            Self::Version => "a version",
        }
    }
}

/// Head nouns that make "what (is the) … NOUN" ask for a value, by kind. A noun is here
/// because it names a quantity in any domain (a fee is an amount of money wherever it
/// occurs), never because one question used it.
const VALUE_NOUNS: [(&str, Kind); 28] = [
    ("salary", Kind::Money),
    ("salaries", Kind::Money),
    ("stipend", Kind::Money),
    ("wage", Kind::Money),
    ("fee", Kind::Money),
    ("fees", Kind::Money),
    ("fine", Kind::Money),
    ("fines", Kind::Money),
    ("price", Kind::Money),
    ("cost", Kind::Money),
    ("deadline", Kind::Duration),
    ("period", Kind::Duration),
    ("number", Kind::Number),
    ("percentage", Kind::Number),
    ("amount", Kind::Number),
    ("length", Kind::Number),
    ("size", Kind::Number),
    ("age", Kind::Number),
    ("mode", Kind::Number),
    ("ratio", Kind::Number),
    ("rate", Kind::Number),
    ("rates", Kind::Number),
    ("quorum", Kind::Number),
    ("version", Kind::Version),
    ("date", Kind::Date),
    ("dates", Kind::Date),
    ("month", Kind::Date),
    ("months", Kind::Date),
];

/// Adjectives and adverbs of degree that make "how …" ask for a value, by kind: a size or an
/// age is a number ("How large may …", "How old must …"), and how soon something happens is a
/// time: a duration, a word such as "immediately", or an event it comes before ("How quickly
/// must …"). English's question of degree, in any domain.
const HOW_DEGREES: [(&str, Kind); 14] = [
    ("large", Kind::Number),
    ("big", Kind::Number),
    ("small", Kind::Number),
    ("high", Kind::Number),
    ("low", Kind::Number),
    ("old", Kind::Number),
    ("far", Kind::Number),
    ("heavy", Kind::Number),
    ("soon", Kind::Extent),
    ("quickly", Kind::Extent),
    ("fast", Kind::Extent),
    ("promptly", Kind::Extent),
    ("early", Kind::Extent),
    ("late", Kind::Extent),
];

/// The degree words of English's questions of time, by the kind of value that answers them:
/// "how long" a length of time, "how often" a frequency (see [`time_degree`]).
const TIME_DEGREES: [(&str, Kind); 2] = [("long", Kind::Duration), ("often", Kind::Frequency)];

/// The degree word of a question of time among `terms` ("long" of "how long after launch may
/// …"), with the kind of value that answers it, when the question asks that kind
/// ([`Asks::values`]) and names no subject it measures ([`Asks::subject`]): the time is then
/// the one between the events the question names, and a sentence that holds a value of that
/// kind says "how long" in its own words ("at least 1 year between the two"). A question that
/// measures a subject ("how long are passes kept") is answered by a value about that subject,
/// which [`Asks::names_subject`] finds.
pub fn time_degree<'a>(
    asks: &Asks,
    terms: impl IntoIterator<Item = &'a String>,
) -> Option<(String, Kind)> {
    if !asks.subject.is_empty() {
        return None;
    }
    let terms: HashSet<&String> = terms.into_iter().collect();
    TIME_DEGREES
        .iter()
        .filter(|(_, k)| {
            asks.values
                .iter()
                .any(|v| v == k || (*v == Kind::Extent && *k == Kind::Duration))
        })
        .map(|(w, k)| (stem(w), *k))
        .find(|(w, _)| terms.contains(w))
}

/// The asks of a question: the kinds of value some of them want and how many want none.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Asks {
    /// One entry per ask that wants a value.
    pub values: Vec<Kind>,
    /// Asks answered by prose (no particular value).
    pub open: usize,
    /// Units of measure an ask names for its number ("in megabytes"): only a number in that
    /// unit answers it.
    pub units: Vec<&'static str>,
    /// The nouns whose number an ask wants ("how many reviewers", "what file mode"); see
    /// [`Asks::answered_by`].
    pub nouns: Vec<String>,
    /// The words of what a "how long / how often / how many" ask measures, stemmed ("How
    /// long is the notice period for …" → "notice", "period"); see [`measured_subject`].
    pub subject: Vec<String>,
    /// The things an ask counts ("how many failed attempts", "the number of reviewers"); see
    /// [`Asks::unmet_in`].
    pub counted: Vec<String>,
    /// The degree words of "how …" asks ("old" of "how old", "long" of "how long"): a text
    /// that answers with the degree as far as a need allows ("as old as practical", "for as
    /// long as necessary") answers it without a number; see [`AS_FAR_AS_NEEDED`].
    pub degrees: Vec<String>,
    /// An ask counts a length of time in its unit ("how many days …"): a count answers it,
    /// a word for no time ("immediately") does not.
    pub counts_time: bool,
    /// An ask wants an amount of a thing ("how much memory …"): a number next to the
    /// thing answers it, or a value said of most of what the question asks about; see
    /// [`Asks::unmet_in`].
    pub amount: bool,
    /// A "how long" ask asks how long something lasts, not how long a thing is ("How long
    /// are logs kept?", not "How long may a name be?"): only a time answers it (see
    /// [`how_long_it_lasts`]).
    pub lasts: bool,
    /// The verbs (stemmed) of what lasts, written as past participles ("kept" of "How long
    /// are logs kept?"); see [`Asks::unmet_in`].
    pub lasting: Vec<String>,
    /// For "Who is the …?", the question's own words (lower case): the name that answers it
    /// is another ("Who is the harbour master?" is not answered by "The Harbour Master signs
    /// the log"); see [`asks_who_holds_a_role`].
    pub known: Vec<String>,
    /// For "Who is the …?", the role's head noun ("master" of "Who is the harbour master of
    /// the west basin?"): a sentence that says who or what is that role answers it too, in
    /// any case ("The club's treasurer is the vice-commodore"); see [`says_who_holds`].
    pub role: Option<String>,
    /// For "Who chairs the Harbour Board?", the act's stem ("chair"): the name that answers
    /// it stands near a word of that act ("chaired by Ann Wood", "Ann Wood (chair)"); see
    /// [`asks_who_acts_on`].
    pub act: Option<String>,
    /// Words (stemmed) of what a value is said of, one of which a quote giving the value must
    /// hold: the event a time is counted to or from ("moor" of "How many days before
    /// mooring a boat …", [`time_event`]) and the role asked who holds ("master" of "Who is
    /// the harbour master?"). A value said of a neighbouring event or post ("21 days to object
    /// to a transfer", "the Harbour Board") answers another question.
    pub said_of: Vec<String>,
}

impl Asks {
    /// Whether `sentence` gives a value of `kind` for this question: for a number, one next to
    /// the noun it counts or qualifies ("mode 4754", "three reviewers"); a sentence that holds
    /// a number about something else ("only one package may …") does not answer "how many
    /// reviewers". Durations, frequencies and amounts carry their own units.
    pub fn answered_by(&self, kind: Kind, sentence: &str) -> bool {
        if self.says_degree(sentence) {
            return true;
        }
        if matches!(kind, Kind::Extent | Kind::Name) {
            return self.meets(kind, sentence);
        }
        if kind == Kind::Duration && self.counts_time {
            return counts_time(sentence);
        }
        if kind != Kind::Number || self.nouns.is_empty() {
            return holds(kind, sentence);
        }
        number_next_to(&self.nouns, sentence)
    }

    /// Whether `sentence` names what the question measures ([`Asks::subject`]) in the
    /// question's words and order ("the notice period", not "a notice … during that period").
    pub fn names_subject(&self, sentence: &str) -> bool {
        if self.subject.is_empty() {
            return false;
        }
        let words: Vec<String> = content_terms(sentence).iter().map(|w| stem(w)).collect();
        words.windows(self.subject.len()).any(|w| w == self.subject)
    }

    /// [`Asks::unmet`] over the quotes that speak of the question's subject (`subject`: its own
    /// terms, less the words of the cited documents' names): "How long are emails kept under
    /// the retention standard?" is not answered by "The Records Manager reviews this standard
    /// every year", which holds a duration about something else. With no subject terms, every
    /// quote counts.
    pub fn unmet_in(&self, quotes: &[&str], subject: &HashSet<String>) -> Option<Kind> {
        // The unit the value is counted in ("years" of "for how many years …") is the value's
        // word, not its subject's: "at least one year" about something else shares it.
        // When the quotes hold none of the other words, the unit is all that ties them to the
        // question (they say the rest in other words: "work remotely" for "work from home").
        // The degree word ("often" of "how often") is the value's too.
        let degrees: HashSet<String> = self.degrees.iter().map(|d| stem(d)).collect();
        let base: HashSet<&String> = subject.iter().filter(|t| !degrees.contains(*t)).collect();
        let own: HashSet<&String> = base.iter().copied().filter(|t| !names_a_unit(t)).collect();
        let held = quotes
            .iter()
            .any(|q| stems(q).iter().any(|t| own.contains(t)));
        // A count of time units ("how many days …") or an amount ("how much …") is said of
        // most of what the question asks it of (a quote's stems `have`): "How many weeks may
        // the club take to refund a deposit?" is not answered by "the club answers within 2
        // weeks", which shares one of its words.
        let most = |have: &HashSet<String>| {
            let shared = have.iter().filter(|t| own.contains(t)).count();
            held && shared as f32 >= SUBJECT_SHARE * own.len() as f32
        };
        let subject = if held { own.clone() } else { base };
        // How long a thing lasts is said of that thing or of its lasting: "How long is the
        // berth register kept?" is not answered by "A berth holder must report damage within
        // 24 hours", which names neither the register (the head of what is measured) nor its
        // keeping.
        let lasting: HashSet<&String> = self
            .subject
            .last()
            .into_iter()
            .chain(&self.lasting)
            .collect();
        // A row of a table is terse: one of the subject's words names its line ("Payroll\t…
        // \tSix years after").
        let strict = !self.lasting.is_empty() && !self.subject.is_empty();
        let measured: HashSet<&String> = self.subject.iter().collect();
        // A name of the question written with letters and digits ("the Mk2 hull", "an
        // X200 winch") picks out what is measured from its kind: a value of another of the
        // kind ("the Mk1 hull") answers another question.
        let marks: Vec<&String> = subject.iter().copied().filter(|t| is_mark(t)).collect();
        // A quote that finishes the sentence the quote before it began is read with it.
        let read: Vec<String> = quotes
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let q = without_clause_number(q.trim_start());
                match i.checked_sub(1).map(|b| quotes[b]) {
                    Some(b) if !b.contains(crate::ingest::grid::CELL) && cut_inside(b) => {
                        format!("{b} {q}")
                    }
                    _ => q.to_owned(),
                }
            })
            .collect();
        let on_subject: Vec<&str> = read
            .iter()
            .map(String::as_str)
            .filter(|q| {
                let have = stems(q);
                let any = |set: &HashSet<&String>| have.iter().any(|t| set.contains(t));
                let on = if strict {
                    any(&lasting) || (q.contains(crate::ingest::grid::CELL) && any(&measured))
                } else {
                    subject.is_empty() || any(&subject)
                };
                on && (!(held && self.counts_time) || most(&have))
                    && (self.said_of.is_empty() || says_of(&have, &self.said_of))
                    && marks.iter().all(|m| have.contains(*m))
            })
            .collect();
        let unmet = self.unmet(&on_subject.join(" "));
        if unmet.is_some() || self.open > 0 || self.counted.is_empty() {
            return unmet;
        }
        // A count answers "how many failed attempts" only when it counts attempts: some quote
        // must hold a number next to a thing the question counts ("locked after five failed
        // attempts"); a number about something else ("logged for 30 days") does not answer.
        // An amount ("how much memory …") is one next to the thing, or a value in another
        // measure said of most of the question ("data is restored to a point 24 hours
        // before the outage" for "how much logbook history can vanish in an outage").
        let answers = |q: &&str| {
            number_next_to(&self.counted, q)
                || (self.amount && holds_a_measure(q) && most(&stems(q)))
        };
        (!on_subject.iter().any(answers)).then_some(Kind::Number)
    }

    /// Whether `text` holds a value of a kind some ask wants, as that ask wants it.
    pub fn holds_a_value(&self, text: &str) -> bool {
        self.values.iter().any(|k| self.meets(*k, text))
    }

    /// The first value the question needs that `text` does not hold, when nothing else of the
    /// question could be answered without it (every ask wants a value). A question with an open
    /// ask ("how often …, and what must the plan contain?") is answered in part instead.
    pub fn unmet(&self, text: &str) -> Option<Kind> {
        if self.open > 0 {
            return None;
        }
        self.values.iter().copied().find(|k| !self.meets(*k, text))
    }

    /// Whether `text` answers one of the question's degree words ([`Asks::degrees`]) with
    /// that degree as far as a need allows ("How old may … be?" and "support as old as
    /// practical").
    fn says_degree(&self, text: &str) -> bool {
        AS_FAR_AS_NEEDED.as_ref().is_some_and(|re| {
            re.captures_iter(text).any(|c| {
                c.get(1).is_some_and(|d| {
                    self.degrees
                        .iter()
                        .any(|x| x.eq_ignore_ascii_case(d.as_str()))
                })
            })
        })
    }

    /// Whether `text` holds a value of `kind` as this question asks it: a number asked in a
    /// unit only in that unit, and "how long" also by a time an event bounds.
    fn meets(&self, kind: Kind, text: &str) -> bool {
        if self.says_degree(text) || (kind == Kind::Extent && matches(&BOUNDED_TIME, text)) {
            true
        } else if kind == Kind::Extent && self.lasts {
            holds_duration(text)
        } else if let (Kind::Name, Some(act)) = (kind, &self.act) {
            names_near_act(text, act, &self.known)
        } else if kind == Kind::Name && !self.known.is_empty() {
            names_a_party_beyond(text, &self.known)
                || self.role.as_ref().is_some_and(|r| says_who_holds(text, r))
        } else if matches!(kind, Kind::Number | Kind::Extent) && !self.units.is_empty() {
            self.units.iter().all(|u| holds_in(u, text))
        } else if kind == Kind::Duration && self.counts_time {
            counts_time(text)
        } else {
            holds(kind, text)
        }
    }
}

/// Where a new ask begins inside a question: after "?" or ";", or at "and"/"or" followed by an
/// interrogative ("…, and how do they…"; "…, and is there…" only after a comma, where an
/// auxiliary cannot continue a verb phrase).
static BOUNDARY: Pattern = LazyLock::new(|| {
    regex(
        r"(?i)[?;]\s*|\s(?:and|or)\s+(?:how|what|which|who|whom|whose|when|where|why)\b|,\s*(?:and|or)\s+(?:is|are|was|were|does|do|did|can|could|should|must|may|will|would|has|have)\b",
    )
});
/// The first interrogative of an ask and the words after it.
static INTERROGATIVE: Pattern = LazyLock::new(|| {
    regex(r"(?i)\b(how|what|which|who|whom|whose|when|where|why)\b((?:\s+[\w'’/-]+){0,8})")
});
static TIME_UNIT: Pattern = LazyLock::new(|| {
    regex(r"(?i)^(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|quarters?)$")
});
static MONEY_VERB: Pattern = LazyLock::new(|| regex(r"(?i)\b(pay|paid|cost|costs|charge\w*)\b"));
/// A degree stated as far as a need or a means allows, with the degree word: "as old as
/// practical", "for as long as necessary", "as soon as reasonably practicable". English's
/// answer to a question of degree when a document sets no number.
static AS_FAR_AS_NEEDED: Pattern = LazyLock::new(|| {
    regex(
        r"(?i)\bas\s+(\w+)\s+as\s+(?:is\s+|it\s+is\s+|they\s+are\s+)?(?:reasonably\s+)?(?:possible|practical|practicable|necessary|needed|required|appropriate|feasible)\b",
    )
});

/// Reads the asks of a question.
pub fn asks(question: &str) -> Asks {
    let mut out = Asks::default();
    let Some(boundary) = BOUNDARY.as_ref() else {
        return out;
    };
    let mut starts = vec![0];
    for m in boundary.find_iter(question) {
        // A boundary at "and how" starts the new ask at its interrogative (the last word of
        // the match); one at "?" or ";" right after the match.
        let s = m.as_str();
        let keep = if s.ends_with(char::is_alphabetic) {
            s.rfind(char::is_whitespace)
                .map_or(m.end(), |i| m.start() + i + 1)
        } else {
            m.end()
        };
        starts.push(keep.min(question.len()));
    }
    starts.push(question.len());
    for w in starts.windows(2) {
        let part = question[w[0]..w[1]].trim();
        if part.chars().filter(|c| c.is_alphabetic()).count() < 3 {
            continue;
        }
        // A name that answers "Who …?" is none of the question's own words.
        let own_words = || {
            part.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
        };
        if let Some(role) = asks_who_holds_a_role(part) {
            out.known.extend(own_words());
            out.said_of.push(role.clone());
            out.role = Some(role);
            out.values.push(Kind::Name);
            continue;
        }
        if let Some(act) = asks_who_acts_on(part) {
            out.known.extend(own_words());
            out.act = Some(act);
            out.values.push(Kind::Name);
            continue;
        }
        match kind_of(part) {
            Some(k) => {
                if let Some((wh, rest)) = interrogative(part)
                    && wh == "how"
                    && let Some(degree) = rest.first()
                {
                    if !matches!(degree.as_str(), "many" | "much") {
                        out.degrees.push(degree.clone());
                    }
                    out.counts_time |= k == Kind::Duration && degree == "many";
                    out.amount |= degree == "much";
                    if k == Kind::Extent
                        && let Some(verb) = how_long_it_lasts(&rest[1..])
                    {
                        out.lasts = true;
                        out.lasting.extend(verb);
                    }
                }
                if matches!(k, Kind::Number | Kind::Extent) {
                    out.units.extend(unit_named(part));
                    out.nouns.extend(value_noun(part));
                    out.counted.extend(counted_noun(part));
                }
                if matches!(k, Kind::Extent | Kind::Duration | Kind::Date)
                    || (k == Kind::Number && out.counts_time)
                {
                    out.said_of.extend(time_event(part));
                }
                if matches!(
                    k,
                    Kind::Number | Kind::Extent | Kind::Duration | Kind::Frequency
                ) {
                    out.subject.extend(measured_subject(part));
                    // What lasts is the subject, not its verb ("kept").
                    let verbs = &out.lasting;
                    out.subject.retain(|t| !verbs.contains(t));
                }
                out.values.push(k);
            }
            None => out.open += 1,
        }
    }
    out
}

/// Whether the words after "how long" ask how long something lasts, with the verb (stemmed)
/// when it is a past participle: a verb other than "be" comes with them — a participle ("How
/// long are logs kept?", "How long must a hull be dried?") or one after "do" ("How long does a
/// survey take?") — where "How long may a name be?" and "How long is the notice period?" ask
/// for a length, of a thing or of time.
fn how_long_it_lasts(words: &[String]) -> Option<Option<String>> {
    let participle = |w: &&String| {
        lexicon::IRREGULAR_FORMS.iter().any(|(form, _)| form == *w)
            || (w.len() > 4 && w.ends_with("ed"))
    };
    if let Some(verb) = words.iter().skip(1).find(participle) {
        return Some(Some(stem(verb)));
    }
    let done = words
        .first()
        .is_some_and(|w| matches!(w.as_str(), "do" | "does" | "did"));
    done.then_some(None)
}

/// The asks of a message in a thread: a follow-up with no question word of its own ("And to
/// agree on a resolution?", "What about visitors?") asks what the `earlier` question asked,
/// of something else ("How long does the committee have to confirm receipt?" → a length of
/// time); what the earlier question measured or counted stays with it. A follow-up that is
/// a question of its own ("And is it free?", "And who signs?") keeps its own asks.
pub fn asks_in_thread(own: &str, earlier: &str) -> Asks {
    let mine = asks(own);
    if earlier.trim().is_empty() || !mine.values.is_empty() || !is_fragment(own) {
        return mine;
    }
    let before = asks(earlier);
    Asks {
        subject: Vec::new(),
        counted: Vec::new(),
        nouns: Vec::new(),
        ..before
    }
}

/// Whether a message goes on from the question before it without a question of its own: it
/// opens with "and", "or", "what about" or "how about", and after that opener holds no
/// interrogative and does not begin with an auxiliary ("And is it free?" asks anew).
fn is_fragment(message: &str) -> bool {
    let m = message.trim().to_lowercase();
    let rest = ["and ", "or ", "what about ", "how about "]
        .iter()
        .find_map(|o| m.strip_prefix(o));
    let Some(rest) = rest else {
        return false;
    };
    let first = rest
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    interrogative(rest).is_none()
        && !lexicon::AUXILIARIES.contains(&first)
        && !lexicon::MODALS.contains(&first)
}

/// The event a time ask counts to or from, as the stem of its head: after the interrogative,
/// the words after "before", "after", "prior to" or "following" — a gerund ("before mooring a
/// boat" → "moor") or a noun phrase led by a determiner, whose last word before a preposition,
/// "of" or the ask's end is its head, and the head after its "of" too ("after the spring
/// survey of a hull" → "survey", "hull": "the end of the lease" is said of the lease's
/// expiry). "How many days before the regatta must entries close?" is answered by a time
/// said of the regatta, not by "21 days to object to a transfer". A clause ("before a boat is
/// moored", "before it sails", "after the survey that found damage") or a bare noun names no
/// event this reads.
fn time_event(ask: &str) -> Vec<String> {
    let words: Vec<String> = ask
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    // "After how many minutes …" names the value's bound, not an event.
    let Some(wh) = words
        .iter()
        .position(|w| matches!(w.as_str(), "how" | "what" | "which" | "when"))
    else {
        return Vec::new();
    };
    let Some(at) = words
        .iter()
        .enumerate()
        .skip(wh + 1)
        .find_map(|(i, w)| match w.as_str() {
            "before" | "after" | "following" => Some(i + 1),
            "prior" if words.get(i + 1).is_some_and(|n| n == "to") => Some(i + 2),
            _ => None,
        })
    else {
        return Vec::new();
    };
    let after = &words[at.min(words.len())..];
    let Some(first) = after.first() else {
        return Vec::new();
    };
    if first.len() > 5 && first.ends_with("ing") && !content_terms(first).is_empty() {
        return vec![stem(first)];
    }
    if !lexicon::NOUN_DETERMINERS.contains(&first.as_str()) {
        return Vec::new();
    }
    let aux = |w: &String| lexicon::AUXILIARIES.contains(&w.as_str());
    let end = after[1..]
        .iter()
        .position(|w| w == "of" || aux(w) || lexicon::PREPOSITIONS.contains(&w.as_str()))
        .map_or(after.len(), |i| i + 1);
    let phrase = &after[1..end];
    // The phrase is a clause when a pronoun is in it or its auxiliary leads a participle
    // ("a boat is moored"); an auxiliary that leads the question's own clause ends it
    // ("before the regatta must entries close").
    let participle = |w: &String| {
        matches!(w.as_str(), "be" | "been" | "being")
            || lexicon::IRREGULAR_FORMS.iter().any(|(form, _)| form == w)
            || (w.len() > 4 && w.ends_with("ed"))
    };
    let clause = phrase.iter().any(|w| {
        matches!(
            w.as_str(),
            "that" | "which" | "who" | "it" | "they" | "he" | "she" | "we" | "you"
        )
    }) || (after.get(end).is_some_and(aux)
        && after.get(end + 1).is_some_and(participle));
    let head_of = |phrase: &[String]| {
        phrase
            .iter()
            .rev()
            .find(|w| !content_terms(w).is_empty())
            .map(|w| stem(w.trim_end_matches("'s").trim_end_matches("’s")))
    };
    let mut heads: Vec<String> = head_of(phrase).filter(|_| !clause).into_iter().collect();
    // "the end of the lease": the event is named by its "of" too ("the lease's expiry").
    if !heads.is_empty() && after.get(end).is_some_and(|w| w == "of") {
        let rest = &after[end + 1..];
        let from = usize::from(
            rest.first()
                .is_some_and(|w| lexicon::NOUN_DETERMINERS.contains(&w.as_str())),
        );
        let stop = rest[from.min(rest.len())..]
            .iter()
            .position(|w| w == "of" || aux(w) || lexicon::PREPOSITIONS.contains(&w.as_str()))
            .map_or(rest.len(), |i| i + from);
        heads.extend(head_of(&rest[from.min(stop)..stop]));
    }
    heads
}

/// Whether one of a text's stems (`have`) is one of `words` (stems), or shares its first five
/// letters and all but the last two of the shorter ("expiry" and "expires").
/// Whether a term is a name written with letters and digits ("mk2", "x200", "ipv6"): a model,
/// a format or a version named as one word. A clause or section number ("6.1.1(c)") opens with
/// a digit and is no such name.
fn is_mark(term: &str) -> bool {
    term.starts_with(|c: char| c.is_ascii_alphabetic()) && term.chars().any(|c| c.is_ascii_digit())
}

fn says_of(have: &HashSet<String>, words: &[String]) -> bool {
    have.iter().any(|t| {
        words.iter().any(|w| {
            let shared = t.chars().zip(w.chars()).take_while(|(a, b)| a == b).count();
            let shorter = t.chars().count().min(w.chars().count());
            t == w || (shared >= 5 && shared + 2 >= shorter)
        })
    })
}

/// The first interrogative of an ask (lower case) and the words after it (lower case, without
/// punctuation).
fn interrogative(ask: &str) -> Option<(String, Vec<String>)> {
    let caps = INTERROGATIVE.as_ref()?.captures(ask)?;
    let wh = caps.get(1)?.as_str().to_lowercase();
    let rest = caps
        .get(2)
        .map_or("", |m| m.as_str())
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    Some((wh, rest))
}

/// The role's head noun (stemmed) when an ask is "Who is the …?" (or "Who is the firm's
/// …?"): it asks who holds one role or post, which a name answers — a party the document names
/// with a capital, other than the words of the question ("The Eclipse Foundation is the initial
/// steward") — or a sentence that says who or what is that role ("The treasurer is the
/// vice-commodore", [`says_who_holds`]). A document that names only the role ("the release
/// manager decides") does not say who holds it. "Who is responsible for …" and "Who is in
/// charge of …" ask about a duty, and "Who are the …?" for the members of a group, which
/// roles answer ("- the master", "- the second mate"): both are answered in prose.
fn asks_who_holds_a_role(ask: &str) -> Option<String> {
    let (wh, rest) = interrogative(ask)?;
    let word = |i: usize| rest.get(i).map_or("", String::as_str);
    let possessive = word(1).ends_with("'s") || word(1).ends_with("’s");
    if wh != "who" || !matches!(word(0), "is" | "was") || !(word(1) == "the" || possessive) {
        return None;
    }
    // The head: the last word before a preposition, or of the question.
    let start = if possessive { 1 } else { 2 };
    let head = rest[start..]
        .iter()
        .take_while(|w| w.as_str() != "of" && !lexicon::PREPOSITIONS.contains(&w.as_str()))
        .last()?;
    Some(stem(head.trim_end_matches("'s").trim_end_matches("’s")))
}

/// Whether `text` says who or what holds the role whose head noun is `head` (stemmed): the
/// role after a copula ("… is the harbour master", "… acts as the master") or a copula after
/// it ("The harbour master is …", "The master will be …").
fn says_who_holds(text: &str, head: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let copula = |w: &str| matches!(w, "is" | "are" | "was" | "were" | "be" | "as");
    words.iter().enumerate().any(|(i, w)| {
        if stem(w) != head {
            return false;
        }
        let after = words.get(i + 1).is_some_and(|n| copula(n))
            || (words
                .get(i + 1)
                .is_some_and(|n| matches!(n.as_str(), "will" | "shall"))
                && words.get(i + 2).is_some_and(|n| n == "be"));
        // "… is the harbour master": a copula, an article and up to three words before it.
        let before = (1..=4).any(|k| {
            i > k
                && matches!(
                    words[i - k].as_str(),
                    "the" | "a" | "an" | "its" | "their" | "our"
                )
                && copula(&words[i - k - 1])
                && words[i - k + 1..i].iter().all(|m| !copula(m))
        });
        after || before
    })
}

/// [`names_a_party`], by a name none of whose words is one of `known` (lower case) or a
/// noun of reference ("Annex B").
fn names_a_party_beyond(text: &str, known: &[String]) -> bool {
    any_inner_capital(text, |w| {
        // A single capital labels ("Annex B"), it names no one.
        w.chars().count() > 1
            && !lexicon::CALENDAR_NAMES.contains(&w)
            && !known.contains(&w.to_lowercase())
            && !lexicon::is_reference_noun(w)
    })
}

/// The act's stem when an ask is "Who <verb> the <Name> …?" — a verb of its own in the
/// present or the past ("chairs", "maintains", "designed"), not an auxiliary, and a definite
/// object written with a capital ("the Harbour Board", "the Tide Tables"): it asks who does
/// that to one named body or thing, which only a name given with the act answers. A document
/// that names the body ("The Harbour Board meets monthly") or the post ("the chair of the
/// Harbour Board") does not say who that is. A duty over a kind of thing ("Who approves a
/// refund?", "Who inspects the hull of …") is answered by a role and is not read here.
fn asks_who_acts_on(ask: &str) -> Option<String> {
    let (wh, rest) = interrogative(ask)?;
    let verb = rest.first()?;
    let finite = (verb.len() > 3 && verb.ends_with('s') && !verb.ends_with("ss"))
        || (verb.len() > 4 && verb.ends_with("ed"));
    if wh != "who"
        || !finite
        || lexicon::AUXILIARIES.contains(&verb.as_str())
        || rest.get(1).is_none_or(|w| w != "the")
    {
        return None;
    }
    // The object as written, up to a preposition: one of its words has a capital.
    let after = ask
        .split_whitespace()
        .skip_while(|w| !w.eq_ignore_ascii_case("the"))
        .skip(1);
    let named = after
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .take_while(|w| !lexicon::PREPOSITIONS.contains(&w.to_lowercase().as_str()))
        .any(|w| w.starts_with(char::is_uppercase));
    named.then(|| stem(verb))
}

/// Whether `text` names someone within [`ACT_REACH`] words of a word of the act `act`
/// (stemmed; "chaired by Ann Wood", "Ann Wood (chair)"): a word with a capital that is none
/// of the question's words (`known`) nor a noun of reference.
fn names_near_act(text: &str, act: &str, known: &[String]) -> bool {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let acts = [act.to_owned()];
    words.iter().enumerate().any(|(i, w)| {
        let have: HashSet<String> = [stem(&w.to_lowercase())].into();
        says_of(&have, &acts)
            && words[i.saturating_sub(ACT_REACH)..(i + ACT_REACH + 1).min(words.len())]
                .iter()
                .any(|n| {
                    n.starts_with(char::is_uppercase)
                        && n.chars().count() > 1
                        && !known.contains(&n.to_lowercase())
                        && !lexicon::is_reference_noun(n)
                })
    })
}

/// How many words from a word of the act a name answering "Who <verb> the …?" may stand
/// ("Ann Wood, who has chaired the board since 2019"): further, a name belongs to another
/// clause of the sentence.
const ACT_REACH: usize = 5;

/// The kind of value one ask wants, from its first interrogative.
fn kind_of(ask: &str) -> Option<Kind> {
    let (wh, rest) = interrogative(ask)?;
    let word = |i: usize| rest.get(i).map_or("", String::as_str);
    // "Which bank holds …", "What insurer is …": the organisation heads the subject when a
    // verb follows it (an auxiliary, or a verb in -s that no auxiliary follows, as a plural
    // noun would be: "Which bank accounts are …").
    if matches!(wh.as_str(), "which" | "what") && lexicon::ORGANISATIONS.contains(&word(0)) {
        let verb = lexicon::AUXILIARIES.contains(&word(1))
            || (lexicon::ends_like_plural(word(1)) && !lexicon::AUXILIARIES.contains(&word(2)));
        if verb {
            return Some(Kind::Name);
        }
    }
    // "Which country's law …", "Which bank's terms …": the possessor is one named place or
    // body.
    if matches!(wh.as_str(), "which" | "what")
        && let Some(owner) = word(0)
            .strip_suffix("'s")
            .or_else(|| word(0).strip_suffix("’s"))
        && (lexicon::ORGANISATIONS.contains(&owner) || lexicon::PLACES.contains(&owner))
    {
        return Some(Kind::Name);
    }
    match wh.as_str() {
        "how" => {
            match word(0) {
                "often" | "frequently" => Some(Kind::Frequency),
                // "How long" asks for a time or a length: a number, or a time an event bounds.
                "long" => Some(Kind::Extent),
                w if let Some((_, k)) = HOW_DEGREES.iter().find(|(d, _)| *d == w) => Some(*k),
                "many" => Some(
                    if rest.iter().skip(1).take(3).any(|w| matches(&TIME_UNIT, w)) {
                        Kind::Duration
                    } else {
                        Kind::Number
                    },
                ),
                // "How much time …", "how much notice …", "how much paid leave …": a length of
                // time, whatever verb of paying comes with it.
                "much" => Some(
                    if rest.iter().skip(1).take(3).any(|w| {
                        lexicon::PERIOD_NOUNS.contains(&w.as_str()) || matches(&TIME_UNIT, w)
                    }) {
                        Kind::Duration
                    } else if word(1) == "money" || matches(&MONEY_VERB, ask) {
                        Kind::Money
                    } else {
                        Kind::Number
                    },
                ),
                _ => None,
            }
        }
        // "What (is|are) (the|a) [modifiers] NOUN": the head of the noun phrase names the
        // value (see [`phrase_value`]).
        "what" => phrase_value(&rest),
        // "In which months …", "Which weekday …": a choice among the calendar's names is
        // answered by a date or a month.
        "which" if CALENDAR_NOUNS.contains(&word(0)) => Some(Kind::Date),
        // "Which firmware version must …", "Which date …", "Which channel number …": a version, a
        // date or a number is named by its value, so choosing which one asks for it. Any other
        // "which" chooses among things and does not ask for a value: "which price applies" is
        // answered by naming the price.
        "which" => phrase_value(&rest).filter(|k| {
            matches!(k, Kind::Version | Kind::Date)
                || phrase_head(&rest).is_some_and(|h| matches!(h, "number" | "numbers"))
        }),
        _ => None,
    }
}

/// The kind of value the noun phrase at the start of `rest` (the words after "what" or
/// "which") names by its head ([`phrase_head`]), looked up in [`VALUE_NOUNS`].
fn phrase_value(rest: &[String]) -> Option<Kind> {
    let head = phrase_head(rest)?;
    VALUE_NOUNS
        .iter()
        .find(|(n, _)| *n == head)
        .map(|(_, k)| *k)
}

/// The head of the noun phrase at the start of `rest` (the words after "what" or "which"): its
/// last word before a function word ("for", "does", "of") ends it; "is"/"are" and an article
/// before it are skipped.
fn phrase_head(rest: &[String]) -> Option<&str> {
    let word = |i: usize| rest.get(i).map_or("", String::as_str);
    let mut i = 0;
    if matches!(word(i), "is" | "are" | "was" | "were") {
        i += 1;
    }
    if matches!(word(i), "the" | "a" | "an") {
        i += 1;
    }
    let words = &rest[i.min(rest.len())..];
    // A word that a determiner follows is the verb, not the phrase's noun ("What phone number
    // reaches the desk?"): a compound noun puts no article inside itself.
    let verb = |k: usize| {
        words
            .get(k + 1)
            .is_some_and(|n| matches!(n.as_str(), "the" | "a" | "an"))
    };
    let phrase: Vec<&String> = words
        .iter()
        .enumerate()
        .take_while(|(k, w)| {
            (!content_terms(w).is_empty() || VALUE_NOUNS.iter().any(|(n, _)| n == *w)) && !verb(*k)
        })
        .map(|(_, w)| w)
        .collect();
    // A relative clause without "that" may close the question: "What is the lowest firmware
    // version Harbourside accepts?" — a value noun, a one-word subject and a verb in -s that
    // ends the question; the value noun heads the phrase, not the verb.
    if phrase.len() == words.len()
        && let [.., noun, _, verb] = phrase.as_slice()
        && VALUE_NOUNS.iter().any(|(n, _)| n == noun)
        && lexicon::ends_like_plural(verb)
    {
        return Some(noun.as_str());
    }
    phrase.last().map(|w| w.as_str())
}

/// Nouns of the calendar that "which" chooses among ("In which months …").
const CALENDAR_NOUNS: [&str; 4] = ["month", "months", "weekday", "weekdays"];

/// The thing a question asks which one of, by name: "Which paint brand must …", "What
/// deposit is taken …" — the head of the one to three content words between "which"/"what"
/// and the auxiliary or modal (`lexicon::AUXILIARIES`) that follows them. `None` when anything
/// else follows the interrogative (a verb, "is", an article, "of"), for "what" and a plural (it
/// asks for a description, which a document words its own way), and for a question about
/// which document or part of one says something (`lexicon::DOCUMENT_NOUNS`,
/// `lexicon::REFERENCE_NOUNS`).
pub fn asked_noun(question: &str) -> Option<String> {
    let (wh, rest) = interrogative(question)?;
    if !matches!(wh.as_str(), "which" | "what") {
        return None;
    }
    let verb = rest
        .iter()
        .position(|w| lexicon::AUXILIARIES.contains(&w.as_str()))?;
    if !(1..=3).contains(&verb) || rest[..verb].iter().any(|w| content_terms(w).is_empty()) {
        return None;
    }
    let head = rest[verb - 1].clone();
    if wh == "what" && lexicon::ends_like_plural(&head) {
        return None;
    }
    // "Within what period …": a noun that names a kind of value asks for that value (see
    // [`Asks::unmet_in`]), which the text states without the noun.
    if VALUE_NOUNS.iter().any(|(n, _)| *n == head) {
        return None;
    }
    let singular = head.strip_suffix('s').unwrap_or(&head);
    let names_a_text = lexicon::is_reference_noun(&head)
        || lexicon::DOCUMENT_NOUNS
            .iter()
            .any(|n| *n == head || *n == singular);
    (!names_a_text).then_some(head)
}

/// What a "how …" ask measures, as stems: the content words after "how many" / "how much"
/// up to the auxiliary, or after "how long" (or "often", "soon", …), its auxiliary and an
/// optional determiner, up to the first word that is not a content word ("How long is the
/// notice period for a tenant?" → "notice", "period"; "How often must the backup be tested?" →
/// "backup", "test"); for "how many people …" what they are counted in ("… sit on the
/// harbour panel" → "harbour", "panel"). Empty for any other shape.
pub fn measured_subject(ask: &str) -> Vec<String> {
    let Some((wh, rest)) = interrogative(ask) else {
        return Vec::new();
    };
    if wh != "how" || rest.len() < 3 {
        return Vec::new();
    }
    let aux = |w: &String| lexicon::AUXILIARIES.contains(&w.as_str());
    // A determiner at `i` ("the notice period", "their lockers") is skipped.
    let det = |i: usize| {
        usize::from(
            rest.get(i)
                .is_some_and(|w| lexicon::NOUN_DETERMINERS.contains(&w.as_str())),
        )
    };
    // "How many people sit on the steering council?" measures the council: persons counted
    // by any noun are counted as members of what follows the verb and its preposition.
    let anyone = rest[0] == "many" && lexicon::ANYONE.contains(&rest[1].as_str());
    let joined = rest
        .iter()
        .enumerate()
        .skip(2)
        .take(3)
        .find(|(_, w)| lexicon::PREPOSITIONS.contains(&w.as_str()));
    let from = if let (true, Some((at, _))) = (anyone, joined) {
        at + 1 + det(at + 1)
    } else if matches!(rest[0].as_str(), "many" | "much") {
        1
    } else if aux(&rest[1]) {
        2 + det(2)
    } else {
        return Vec::new();
    };
    rest[from.min(rest.len())..]
        .iter()
        .take_while(|w| !aux(w) && !content_terms(w).is_empty())
        .map(|w| stem(w))
        .collect()
}

/// Whether `sentence` holds a number within [`NEAR`] words of one of `nouns` ("three
/// reviewers", "mode 4754"), or within [`COUNT_REACH`] words after a word for a count
/// ([`lexicon::COUNT_NOUNS`]) in a sentence that names one of them ("selects deputies as
/// needed to keep their number at a minimum of four"). A word cut from the start of a noun
/// counts as the noun ("lines of 80 chars" for characters; [`abbreviates`]).
fn number_next_to(nouns: &[String], sentence: &str) -> bool {
    let words: Vec<String> = sentence
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches('.').to_lowercase())
        .collect();
    let numeric = |w: &str| {
        (w.starts_with(|c: char| c.is_ascii_digit()) && w.matches('.').count() < 2)
            || lexicon::number(w).is_some()
    };
    let stems: Vec<String> = nouns.iter().map(|n| stem(n)).collect();
    let names = |w: &str| stems.contains(&stem(w)) || nouns.iter().any(|n| abbreviates(w, n));
    let named = words.iter().any(|w| names(w));
    words.iter().enumerate().any(|(i, w)| {
        let near =
            |from: usize, to: usize| words[from..to.min(words.len())].iter().any(|x| numeric(x));
        (names(w) && near(i.saturating_sub(NEAR), i + NEAR + 1))
            || (named
                && lexicon::COUNT_NOUNS.contains(&w.as_str())
                && near(i + 1, i + COUNT_REACH + 1))
    })
}

/// How many words after a word for a count its number may stand: the bound between them
/// ("their number at a minimum of three", "the total shall be no more than 12").
const COUNT_REACH: usize = 8;

/// Whether `word` is `noun` cut short ("chars" for "characters", "info" for "information"):
/// at least four letters, all of them the noun's first.
fn abbreviates(word: &str, noun: &str) -> bool {
    let cut = word.trim_end_matches('s');
    cut.chars().count() >= 4
        && cut.chars().all(char::is_alphabetic)
        && noun.len() > cut.len()
        && noun.to_lowercase().starts_with(cut)
}

/// How many words apart a number and the noun it counts may stand ("mode 4754", "at least
/// three independent reviewers").
const NEAR: usize = 3;

/// The thing an ask counts: the head after "how many" ("how many failed login attempts" →
/// "attempts"), or after "number of" ("the maximum number of reviewers" → "reviewers"). A
/// measure ("what length", "what percentage") counts nothing. The head after "how much" is
/// the thing whose amount it asks ("how much memory" → "memory").
fn counted_noun(ask: &str) -> Option<String> {
    let (wh, rest) = interrogative(ask)?;
    let (from, how) = match (wh.as_str(), rest.first().map(String::as_str)) {
        ("how", Some("many" | "much")) => (1, true),
        ("what", _) => (
            rest.windows(2)
                .position(|w| w[0] == "number" && w[1] == "of")?
                + 2,
            false,
        ),
        _ => return None,
    };
    let words = &rest[from.min(rest.len())..];
    // The phrase's head: its last content word before a function word or the verb (an
    // auxiliary, or after "how many" a word a determiner follows: "how many members form a
    // quorum"; after "number of" a determiner opens a relative clause: "… of guests a member
    // may bring"). After "how many" a later word that a preposition follows and that does not
    // read as a plural is the verb too ("how many people sit on the board": a plural noun
    // would end in -s, a verb after a plural does not).
    let verb = |k: usize| {
        let next = words.get(k + 1).map_or("", String::as_str);
        lexicon::AUXILIARIES.contains(&words[k].as_str())
            || how && matches!(next, "the" | "a" | "an")
            || how
                && k > 0
                && lexicon::PREPOSITIONS.contains(&next)
                && !lexicon::ends_like_plural(&words[k])
    };
    // A noun that names a document or a version is a word of the phrase too, though no
    // content word of a question ("how many minor versions of …").
    let worded = |w: &str| {
        !content_terms(w).is_empty()
            || lexicon::DOCUMENT_NOUNS.contains(&w.strip_suffix('s').unwrap_or(w))
    };
    words
        .iter()
        .enumerate()
        .take_while(|(k, w)| worded(w) && !verb(*k))
        .map(|(_, w)| w)
        .last()
        .filter(|w| !matches!(TIME_UNIT.as_ref(), Some(re) if re.is_match(w)))
        .filter(|w| !lexicon::ANYONE.contains(&w.as_str()))
        .cloned()
}

/// The noun whose number an ask wants: the head of the phrase after "how many" or the value
/// noun after "what" ([`VALUE_NOUNS`]).
fn value_noun(ask: &str) -> Option<String> {
    let (wh, rest) = interrogative(ask)?;
    let head = |from: usize| {
        rest[from.min(rest.len())..]
            .iter()
            .take_while(|w| {
                !content_terms(w).is_empty() || VALUE_NOUNS.iter().any(|(n, _)| n == *w)
            })
            .last()
            .cloned()
    };
    match (wh.as_str(), rest.first().map(String::as_str)) {
        ("how", Some("many")) => counted_noun(ask),
        ("what", _) => {
            let skip = usize::from(matches!(
                rest.first().map(String::as_str),
                Some("is" | "are" | "was" | "were")
            ));
            let skip = skip
                + usize::from(matches!(
                    rest.get(skip).map(String::as_str),
                    Some("the" | "a" | "an")
                ));
            head(skip).filter(|h| VALUE_NOUNS.iter().any(|(n, _)| n == h))
        }
        _ => None,
    }
}

/// The unit of measure an ask names for its value: "in" and a unit of
/// [`lexicon::MEASURE_UNITS`] ("What is the maximum size in megabytes?").
fn unit_named(ask: &str) -> Option<&'static str> {
    let words: Vec<String> = ask
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    words.windows(2).find_map(|w| {
        (w[0] == "in")
            .then(|| {
                lexicon::MEASURE_UNITS
                    .iter()
                    .find(|(u, _)| *u == w[1])
                    .map(|(u, _)| *u)
            })
            .flatten()
    })
}

/// Whether `text` holds a number written in `unit` ("12 MB", "12MB", "twelve megabytes").
pub fn holds_in(unit: &str, text: &str) -> bool {
    let Some((_, symbols)) = lexicon::MEASURE_UNITS.iter().find(|(u, _)| *u == unit) else {
        return false;
    };
    let is_unit = |w: &str| {
        let w = w
            .trim_end_matches(|c: char| !c.is_alphanumeric() && c != '%')
            .to_lowercase();
        w == unit || symbols.contains(&w.as_str())
    };
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        let digits = w
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(w.len());
        let next = words.get(i + 1).is_some_and(|n| is_unit(n));
        if digits > 0 && w.starts_with(|c: char| c.is_ascii_digit()) {
            let glued = &w[digits..];
            if glued.is_empty() {
                next
            } else {
                is_unit(glued)
            }
        } else {
            lexicon::number(w).is_some() && next
        }
    })
}

/// Words that state an amount besides the number words: "hundred", "a single", "once".
fn amount_words() -> String {
    format!(
        "{}|hundred|thousand|single|once|twice",
        lexicon::number_words()
    )
}
/// A length of time counted: a number and its unit ("30 days", "two business days", "6
/// person-months" — effort counted in time).
static DURATION_A: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(\d+|{amounts})([\s-](business|working|calendar|full))?[\s-]((person|man|staff|FTE)-)?(second|minute|hour|day|week|month|quarter|year)s?\b",
        amounts = amount_words()
    ))
});
/// A word for no time or all time ("immediately", "indefinitely"): it answers "how long"
/// and "how soon", but counts nothing, so it does not answer "how many days".
static TIMELESS: Pattern = LazyLock::new(|| {
    regex(r"(?i)\b(indefinitely|permanently|immediately|promptly|without delay)\b")
});
/// A length of time an article or a vague amount counts ("within a day", "a day or so", "for
/// a few weeks", "several months"), with the word before it: after "once", "twice" or "times"
/// the same words state a frequency ("once a year"); see [`holds_duration`].
static ARTICLE_DURATION: Pattern = LazyLock::new(|| {
    regex(
        r"(?i)(?:\b(\w+)\s+)?\b(?:an?|a\s+few|a\s+couple\s+of|several)\s+(?:(?:business|working|calendar|full)\s+)?(?:second|minute|hour|day|week|month|quarter|year)s?\b",
    )
});
/// A day of the calendar: "31 January", "January 31", "1st of March", "November 2002",
/// "2024-03-01", "31/01/2024", a day of the week, or a month ("in April", which answers "in
/// which months …"). Month names only with their capital ("may" is a modal).
static DATE_A: Pattern = LazyLock::new(|| {
    let months = lexicon::CALENDAR_NAMES[..12].join("|");
    let weekdays = lexicon::CALENDAR_NAMES[12..].join("|");
    regex(&format!(
        r"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{months})\b|\b(?:{months})\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|\b(?:{weekdays})\b"
    ))
});
/// A time counted from an event, which dates what it bounds: "within 30 days of joining",
/// "two weeks before the final release", "a month after the audit".
static COUNTED_FROM: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(?:\d+|{amounts}|an?)\s+(?:(?:business|working|calendar|full)\s+)?(?:second|minute|hour|day|week|month|quarter|year)s?\s+(?:of|after|before|from|following|prior\s+to)\b",
        amounts = amount_words()
    ))
});

/// Whether `text` holds a length of time: a number with a unit ([`DURATION_A`]), or a unit an
/// article or a vague amount counts ([`ARTICLE_DURATION`]) where no frequency word comes
/// before it.
fn holds_duration(text: &str) -> bool {
    matches(&TIMELESS, text) || counts_time(text)
}

/// The share of a question's own words (less its units and degree words) a quote must hold
/// for a count of time units or an amount it gives to be the question's ([`Asks::unmet_in`]):
/// lower lets a value said of a neighbouring subject answer (one or two words shared by the
/// quote beside it: the same party, the same document); higher refuses a value whose quote
/// names its subject in other words or leaves it to the sentence before.
const SUBJECT_SHARE: f32 = 0.5;

/// Whether a quote stops inside a clause (after a word or a comma, not after a mark that
/// ends a sentence, a list item or a lead-in): the quote after it goes on with the clause.
fn cut_inside(quote: &str) -> bool {
    quote
        .trim_end()
        .ends_with(|c: char| c.is_alphanumeric() || c == ',')
}

/// Whether `text` holds a number in a unit of measure: a length of time, an amount of money,
/// a percentage or a number in a unit of [`lexicon::MEASURE_UNITS`] — not a bare count ("two
/// goals").
fn holds_a_measure(text: &str) -> bool {
    counts_time(text)
        || holds(Kind::Money, text)
        || lexicon::MEASURE_UNITS
            .iter()
            .any(|(unit, _)| holds_in(unit, text))
}

/// Whether `text` counts a length of time: a number with its unit, or a unit an article or a
/// vague amount counts (see [`holds_duration`]); "immediately" counts none.
fn counts_time(text: &str) -> bool {
    if matches(&DURATION_A, text) {
        return true;
    }
    ARTICLE_DURATION.as_ref().is_some_and(|re| {
        re.captures_iter(text).any(|c| {
            !c.get(1).is_some_and(|w| {
                matches!(
                    w.as_str().to_lowercase().as_str(),
                    "once" | "twice" | "thrice" | "times"
                )
            })
        })
    })
}

/// A frequency: "every 90 days", "twice a year", "annually", "three times", and a day or
/// month of the calendar that comes round ("every January", "each Monday").
static FREQUENCY_A: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(every|each|per|once a|twice a|times a)\b[^.]{{0,20}}\b(second|minute|hour|day|week|month|quarter|year)s?\b|\b(daily|weekly|monthly|quarterly|annually|yearly|biannually|hourly|regularly|periodically|continuously|ongoing)\b|\b({amounts}|\d+) times\b|\b(?:every|each)\s+(?-i:{calendar})\b",
        amounts = amount_words(),
        calendar = lexicon::CALENDAR_NAMES.join("|")
    ))
});
/// An amount of money: a currency before a number, or after it with up to a scale word
/// ("2 million euros") and two capitalised words ("40,000 Freedonian crowns") between; or
/// a word for no payment ("free of charge").
static MONEY_A: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)(?:{cur})\s?\d|\b\d[\d,.]*\s?(?:(?:thousand|million|billion)\s+)?(?-i:[A-Z][a-z]+\s+){{0,2}}(?:{cur}|{words})\b|\b(?:no|without|free of) (?:charge|fee|payment|salary|compensation)\b|\bunpaid\b",
        cur = lexicon::CURRENCIES,
        words = lexicon::CURRENCY_WORDS
    ))
});
/// Whether a text writes a name: a word with a capital that does not open a sentence, a
/// table cell or a list item ("paid to Harbour Mutual", "audited by KPMG"). "I", months and
/// days of the week are no names.
fn names_a_party(text: &str) -> bool {
    any_inner_capital(text, |w| w != "I" && !lexicon::CALENDAR_NAMES.contains(&w))
}

/// Whether a word written with a capital inside one of `text`'s sentences — not the first word
/// of a sentence, a table cell or a list item — meets `name` (see [`names_a_party`]).
fn any_inner_capital(text: &str, name: impl Fn(&str) -> bool) -> bool {
    super::text::sentences(text).iter().any(|s| {
        s.text.split(crate::ingest::grid::CELL).any(|cell| {
            cell.split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
                .filter(|w| !w.is_empty())
                .skip(1)
                .any(|w| w.starts_with(char::is_uppercase) && name(w))
        })
    })
}

/// A time bounded by an event rather than counted: "until the dispute is settled", "for the
/// day of issue", "for the life of the account", "throughout the visit"; or counted in events
/// rather than units of time: "for a period of three seasons", "a period of two releases".
static BOUNDED_TIME: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(until|till|as long as|throughout|for the (?:whole |entire |full )?(?:day|week|month|year|duration|life|lifetime|term|length) of|a period of (?:\d+|{numbers}))\b",
        numbers = lexicon::number_words()
    ))
});
/// A share written as a fraction in words: "a quarter", "one third", "two-thirds", "half of".
/// ("Third" alone is an ordinal and "half" alone often a part of a year: neither counts.)
static FRACTION_A: Pattern = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:(?:a|one|two|three|four|five)[\s-](?:half|third|quarter|fifth|tenth)s?|(?:two|three|four)[\s-](?:thirds|quarters|fifths)|half\s+(?:of|the|a|an))\b",
    )
});
/// A number written as digits or words; a dotted clause number ("4.2.1") is a reference, not
/// a value, and is skipped by [`holds`].
static NUMBER_A: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(\d+(?:[.,]\d+)*|{})\b",
        lexicon::number_words()
    ))
});

/// The stems among `terms` (a question's) of nouns that name an amount of money or a length of
/// time ("fee", "cost", "deadline", "period"; see `VALUE_NOUNS`), with the kind each names.
/// A text that holds such a value speaks of what the noun names, in whatever words ("Further
/// copies cost 10 crowns each" is about the fee). Counts and sizes are left out: a number in a
/// text says nothing of which count it is.
pub fn measure_nouns<'a>(terms: impl IntoIterator<Item = &'a String>) -> Vec<(String, Kind)> {
    let named: HashSet<&String> = terms.into_iter().collect();
    let mut out: Vec<(String, Kind)> = VALUE_NOUNS
        .iter()
        .filter(|(_, k)| matches!(k, Kind::Money | Kind::Duration))
        .map(|(n, k)| (stem(n), *k))
        .filter(|(n, _)| named.contains(n))
        .collect();
    out.dedup();
    out
}

/// The stems among `terms` of nouns that name a value of any kind ([`VALUE_NOUNS`]: "fee",
/// "period", "quorum", "ratio"), with the kind each names.
pub fn value_nouns<'a>(terms: impl IntoIterator<Item = &'a String>) -> Vec<(String, Kind)> {
    let named: HashSet<&String> = terms.into_iter().collect();
    let mut out: Vec<(String, Kind)> = VALUE_NOUNS
        .iter()
        .map(|(n, k)| (stem(n), *k))
        .filter(|(n, _)| named.contains(n))
        .collect();
    out.dedup();
    out
}

/// Whether the text before a number ends with a reference noun ("clause 4.1", "section 12",
/// "Schedule 2") or a section sign ("§4.2"): the number then names a part of a document, not a
/// value.
fn names_a_reference(before: &str) -> bool {
    let before = before.trim_end();
    before.ends_with('§')
        || before
            .rsplit(|c: char| !c.is_alphabetic())
            .next()
            .is_some_and(lexicon::is_reference_noun)
}

/// Whether a number between `before` and `after` numbers a standard or a document of a series
/// ("RFC 822", "ISO 9001", "EN 71"): an acronym of capitals comes right before it, and no
/// unit after it ("RSA 2048 bits" counts). A currency code before a number is the unit of an
/// amount ("USD 500"). A version asked for is read on its own ("TLS 1.2"; see [`holds`]).
fn names_a_standard(before: &str, after: &str) -> bool {
    let Some(word) = before
        .strip_suffix(' ')
        .and_then(|b| b.rsplit(|c: char| !c.is_alphanumeric()).next())
    else {
        return false;
    };
    let acronym = word.len() >= 2 && word.chars().all(|c| c.is_ascii_uppercase());
    let next = after
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let counted = after.starts_with(['-', '%']) || (!next.is_empty() && names_a_unit(&stem(&next)));
    acronym && !lexicon::is_currency_code(word) && !counted
}

/// Whether a stemmed term names a unit a value is counted in: a unit of time
/// ([`lexicon::TIME_UNITS`]) or of measure ([`lexicon::MEASURE_UNITS`]).
fn names_a_unit(term: &str) -> bool {
    static UNITS: LazyLock<HashSet<String>> = LazyLock::new(|| {
        let time = lexicon::TIME_UNITS
            .split('|')
            .filter(|u| u.chars().all(|c| c.is_ascii_lowercase() || c == '?'))
            .map(|u| u.trim_end_matches("s?"));
        let measure = lexicon::MEASURE_UNITS.iter().map(|(name, _)| *name);
        time.chain(measure).map(stem).collect()
    });
    UNITS.contains(term)
}

/// Whether a number between `before` and `after` numbers an item of a list ("3. Votes are
/// …", "…; 4. vote on …", "2) the chair"): it opens the text or follows a semicolon or colon,
/// and a full stop or closing bracket and a space follow it.
fn enumerates(before: &str, after: &str) -> bool {
    let opens = before.trim_end().is_empty() || before.trim_end().ends_with([';', ':']);
    let marked = after.starts_with(['.', ')']) && after[1..].starts_with(char::is_whitespace);
    opens && marked
}

/// Whether "one" (the number word `word`, between `before` and `after`) picks a member out of
/// a group or stands for a person instead of counting: "one of the few activities", "one of
/// its members", "no one", "any one". English's partitive and its pronoun; neither says how
/// many there are.
fn picks_one(word: &str, before: &str, after: &str) -> bool {
    if !word.eq_ignore_ascii_case("one") {
        return false;
    }
    let next = after.split_whitespace().take(2).collect::<Vec<_>>();
    let partitive = next.first().is_some_and(|w| w.eq_ignore_ascii_case("of"))
        && next
            .get(1)
            .is_some_and(|w| lexicon::DETERMINERS.contains(&w.to_lowercase().as_str()));
    let previous = before
        .split_whitespace()
        .last()
        .unwrap_or("")
        .to_lowercase();
    partitive || matches!(previous.as_str(), "no" | "any" | "every" | "some")
}

/// Whether `text` holds a value of `kind`.
pub fn holds(kind: Kind, text: &str) -> bool {
    match kind {
        Kind::Duration => holds_duration(text),
        Kind::Frequency => matches(&FREQUENCY_A, text),
        Kind::Money => matches(&MONEY_A, text),
        Kind::Number => {
            matches(&FRACTION_A, text)
                || NUMBER_A.as_ref().is_some_and(|re| {
                    re.find_iter(text).any(|m| {
                        m.as_str().matches('.').count() < 2
                            && !names_a_reference(&text[..m.start()])
                            && !names_a_standard(&text[..m.start()], &text[m.end()..])
                            && !enumerates(&text[..m.start()], &text[m.end()..])
                            && !picks_one(m.as_str(), &text[..m.start()], &text[m.end()..])
                    })
                })
        }
        Kind::Extent => {
            holds(Kind::Number, text) || matches(&BOUNDED_TIME, text) || holds_duration(text)
        }
        Kind::Name => names_a_party(text),
        Kind::Date => matches(&DATE_A, text) || matches(&COUNTED_FROM, text),
        Kind::Version => NUMBER_A.as_ref().is_some_and(|re| {
            re.find_iter(text).any(|m| {
                let (before, after) = (&text[..m.start()], &text[m.end()..]);
                writes_a_version(m.as_str(), before, after)
                    && !names_a_reference(before)
                    && !enumerates(before, after)
            })
        }),
    }
}

/// Whether a number between `before` and `after` is written as a version: dotted ("2.1",
/// "4.6.2.0", "9.x"), or after the word "version", "release" or "revision" or a name with a
/// capital inside a sentence ("Java 17"). A count, a range ("30-99") or a man page's section
/// ("dpkg(1)") is none.
fn writes_a_version(number: &str, before: &str, after: &str) -> bool {
    if !number.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let range =
        after.starts_with(['-', '–']) && after[1..].starts_with(|c: char| c.is_ascii_digit());
    if range {
        return false;
    }
    if number.contains('.') || after.starts_with(".x") {
        return true;
    }
    let Some(head) = before.strip_suffix(' ') else {
        return false;
    };
    let word = head
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    let rest = head[..head.len() - word.len()].trim_end();
    let inside = !rest.is_empty() && !rest.ends_with(['.', '!', '?', ':', '\n', '\t']);
    matches!(
        word.to_lowercase().as_str(),
        "version" | "release" | "revision"
    ) || (inside && word.chars().count() > 1 && word.starts_with(char::is_uppercase))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stems of `words`, as a question's subject terms are given to [`Asks::unmet_in`].
    fn stemmed(words: &[&str]) -> HashSet<String> {
        words.iter().map(|w| stem(w)).collect()
    }

    #[test]
    fn a_question_asking_which_one_by_name_gives_its_noun() {
        assert_eq!(
            asked_noun("Which paint brand must be used on the hulls?").as_deref(),
            Some("brand")
        );
        assert_eq!(
            asked_noun("What deposit is taken for a berth key?").as_deref(),
            Some("deposit")
        );
        assert_eq!(asked_noun("What happens to a boat left over winter?"), None);
        assert_eq!(
            asked_noun("Which cleaning products are allowed on deck?").as_deref(),
            Some("products")
        );
        // "What" and a plural asks for a description.
        assert_eq!(asked_noun("What safeguards are in place for divers?"), None);
        assert_eq!(asked_noun("What is the fee for a berth?"), None);
        assert_eq!(asked_noun("Which document covers moorings?"), None);
        // A noun naming a kind of value asks for the value.
        assert_eq!(
            asked_noun("Within what period must a tenant object to the rent?"),
            None
        );
        assert_eq!(asked_noun("Who inspects the pontoons?"), None);
    }

    #[test]
    fn a_how_question_names_what_it_measures() {
        let subject = |q: &str| measured_subject(q).join(" ");
        assert_eq!(
            subject("How long is the cooling period for a kettle?"),
            "cool period"
        );
        assert_eq!(subject("How often must the filters be changed?"), "filter");
        assert_eq!(
            subject("How many spare keys does each flat get?"),
            "spar key"
        );
        assert_eq!(subject("How did the tenants react?"), "");
        assert_eq!(subject("What is the cooling period?"), "");
        let asks = asks("How long is the cooling period for a kettle?");
        assert!(asks.names_subject("The cooling period is 3 days."));
        assert!(!asks.names_subject("Cooling takes 3 days; the period ends at noon."));
    }

    #[test]
    fn a_number_that_names_a_clause_is_no_value() {
        assert!(!holds(
            Kind::Number,
            "Berths are let under the tariff of clause 4.1."
        ));
        assert!(!holds(Kind::Extent, "Fees are set out in Schedule 2."));
        assert!(!holds(Kind::Number, "Appeals go to the board (see §4.2)."));
        // Nor is the number of an item of a list.
        assert!(!holds(
            Kind::Extent,
            "2. appoint the treasurer; 3. audit the accounts"
        ));
        assert!(holds(Kind::Extent, "2. Keep the minutes for 3 years."));
        assert!(holds(
            Kind::Number,
            "Each berth takes 4 boats under clause 7."
        ));
        assert!(holds(Kind::Extent, "The mooring line is 12 metres long."));
    }

    #[test]
    fn a_number_that_names_a_standard_is_no_value() {
        assert!(!holds(
            Kind::Extent,
            "Chain grades follow ISO 1704 for every mooring."
        ));
        assert!(!holds(
            Kind::Number,
            "Radios are tuned as ITU 1371 describes."
        ));
        // A currency code or a unit after the number makes it an amount.
        assert!(holds(Kind::Number, "The berth deposit is USD 500."));
        assert!(holds(Kind::Number, "Boats over LOA 12 metres pay double."));
        assert!(holds(Kind::Number, "Winches are rated SWL 2000-kg."));
        // A version asked for is one.
        assert!(holds(
            Kind::Version,
            "Chart plotters run NMEA 2.0 or later."
        ));
    }

    #[test]
    fn who_holds_a_role_is_answered_by_a_name_the_question_does_not_give() {
        let master = asks("Who is the harbour master of the west basin?");
        assert_eq!(master.values, vec![Kind::Name]);
        assert_eq!(
            master.unmet("The Harbour Master signs the log of the west basin every day."),
            Some(Kind::Name)
        );
        assert_eq!(
            master.unmet("Fees are listed in Annex B."),
            Some(Kind::Name)
        );
        assert_eq!(
            master.unmet("The harbour master of the west basin is Ada Quayle."),
            None
        );
        assert_eq!(
            asks("Who is the club's treasurer?").unmet("The treasurer is the Vice-Commodore."),
            None
        );
        // A sentence that says who or what the role is answers it in any case; one that only
        // mentions the role does not.
        assert_eq!(
            master.unmet("The deputy of the port acts as the harbour master of the west basin."),
            None
        );
        assert_eq!(
            master.unmet("Berths in the west basin are let by the harbour master."),
            Some(Kind::Name)
        );
        // The members of a group are answered by roles.
        assert!(
            asks("Who are the officers on the bridge?")
                .values
                .is_empty()
        );
        // A duty is answered in prose.
        assert!(
            asks("Who is responsible for the slipway?")
                .values
                .is_empty()
        );
        assert!(asks("Who is in charge of the crane?").values.is_empty());
    }

    #[test]
    fn a_time_is_said_of_the_event_it_is_counted_from() {
        assert_eq!(
            time_event("How many days must a skipper wait before mooring a boat?"),
            vec![stem("mooring")]
        );
        assert_eq!(
            time_event("How long after the spring survey of a hull may it be launched?"),
            vec![stem("survey"), stem("hull")]
        );
        // A time said of the event by another word for it ("the end of the lease" for "the
        // expiry of the lease") is said of what it is the end of.
        let lease = asks("How long must a berth log be kept after the expiry of the lease?");
        assert_eq!(lease.said_of, [stem("expiry"), stem("lease")]);
        let end = ["Berth logs are kept for 2 years from the end of the lease."];
        assert_eq!(lease.unmet_in(&end, &HashSet::new()), None);
        assert_eq!(
            time_event("Within how many days prior to the regatta must entries close?"),
            vec![stem("regatta")]
        );
        // No event: none named, a clause, a bare noun, a bound before the interrogative.
        for q in [
            "How many days is a berth held?",
            "How long is a hull dried before it is painted?",
            "How long after the survey that found damage may a boat sail?",
            "How many days before boats leave must crews sign on?",
            "After how many hours must a berth holder report damage?",
        ] {
            assert!(time_event(q).is_empty(), "{q}");
        }
        let wait = asks("How many days must a skipper wait before renaming a boat?");
        let subject = stemmed(&["skipper", "wait", "renam", "boat"]);
        // A time said of a neighbouring event shares the question's other words only.
        let neighbour = ["A skipper must wait 21 days for objections to a berth transfer."];
        assert_eq!(wait.unmet_in(&neighbour, &subject), Some(Kind::Duration));
        let own = ["A boat may be renamed 30 days after the skipper gives notice."];
        assert_eq!(wait.unmet_in(&own, &subject), None);
        // The event's noun and the quote's verb share their first letters.
        let expiry = asks("How many days before expiry must a mooring permit be renewed?");
        let renewed = ["Permits must be renewed at least 30 days before they expire."];
        assert_eq!(expiry.unmet_in(&renewed, &HashSet::new()), None);
        // "Who is the …?" is answered by a name said of the role.
        let master = asks("Who is the current harbour master?");
        let other = ["Harbour dues are set by the West Basin Trust each year."];
        assert_eq!(master.unmet_in(&other, &HashSet::new()), Some(Kind::Name));
        let named = ["Harbour master: Ann Kerr (since 2021)."];
        assert_eq!(master.unmet_in(&named, &HashSet::new()), None);
    }

    #[test]
    fn how_long_a_thing_lasts_is_answered_by_a_time_only() {
        let kept = asks("How long are tide logs kept in the harbour office?");
        assert!(kept.lasts);
        assert!(!kept.meets(
            Kind::Extent,
            "Tide logs follow ISO 1704 and use 12 columns."
        ));
        assert!(kept.meets(Kind::Extent, "Tide logs are kept for 6 years."));
        assert!(kept.meets(
            Kind::Extent,
            "Tide logs are kept until the berth is let again."
        ));
        assert!(asks("How long does a hull survey take?").lasts);
        // A length of a thing, or of time named by its noun, is any number.
        let name = asks("How long may a boat's name be?");
        assert!(!name.lasts);
        assert!(name.meets(Kind::Extent, "A boat's name is limited to 24 letters."));
        assert!(!asks("How long is the notice period?").lasts);
        // The value is said of what lasts (the head of the subject) or of its lasting.
        assert_eq!(kept.subject, ["tide", "logs"].map(stem));
        let none = HashSet::new();
        let elsewhere = [
            "The harbour office keeps tide logs.",
            "Each berth holder must report damage within 24 hours.",
        ];
        assert_eq!(kept.unmet_in(&elsewhere, &none), Some(Kind::Extent));
        assert_eq!(
            kept.unmet_in(&["Tide logs are kept for 6 years."], &none),
            None
        );
        assert_eq!(
            kept.unmet_in(&["All logs stay in the office for 6 years."], &none),
            None
        );
        assert_eq!(
            kept.unmet_in(&["Tide\tDaily readings\t6 years"], &none),
            None
        );
    }

    fn kinds(q: &str) -> (Vec<Kind>, usize) {
        let a = asks(q);
        (a.values, a.open)
    }

    #[test]
    fn who_acts_on_a_named_body_is_answered_by_a_name_given_with_the_act() {
        let chair = asks("Who chairs the Harbour Board?");
        assert_eq!(chair.values, vec![Kind::Name]);
        // The post, or the body and someone doing something else, say no one.
        for text in [
            "The chair of the Harbour Board signs the minutes.",
            "The Harbour Board meets monthly and Tom Reed keeps its minutes in the office.",
        ] {
            assert_eq!(chair.unmet(text), Some(Kind::Name), "{text}");
        }
        for text in [
            "The Harbour Board is chaired by Ann Wood.",
            "Board members: Ann Wood (chair), Tom Reed.",
        ] {
            assert_eq!(chair.unmet(text), None, "{text}");
        }
        // A duty over a kind of thing is answered by a role, as before.
        for q in [
            "Who approves a refund?",
            "Who inspects the hull of a visiting yacht?",
            "Who may moor at the Harbour Board's pontoon?",
        ] {
            assert_eq!(asks(q).act, None, "{q}");
        }
    }

    #[test]
    fn a_count_of_time_or_an_amount_is_said_of_most_of_what_it_is_asked_of() {
        let refund = asks("How many weeks may the marina take to refund a cancelled deposit?");
        let subject = stemmed(&["marina", "refund", "cancelled", "deposit"]);
        // A time of the marina's about something else shares one word of four.
        let other = ["The marina answers every written complaint within 2 weeks."];
        assert_eq!(refund.unmet_in(&other, &subject), Some(Kind::Duration));
        let own = ["The marina will refund a cancelled deposit within 3 weeks."];
        assert_eq!(refund.unmet_in(&own, &subject), None);
        // The rest of a sentence the quote before began is read with it.
        let split = [
            "A deposit for a berth that is cancelled before the season opens is refunded by the marina, less the booking fee, and",
            "the money is paid within 4 weeks of the request.",
        ];
        assert_eq!(refund.unmet_in(&split, &subject), None);
        let cover = asks("How much hull insurance must a charter skipper hold?");
        let subject = stemmed(&["hull", "insurance", "charter", "skipper", "hold"]);
        let other = ["A charter skipper reports damage within 24 hours."];
        assert_eq!(cover.unmet_in(&other, &subject), Some(Kind::Number));
        let own = ["Every charter skipper must hold hull insurance of at least 2 million euros."];
        assert_eq!(cover.unmet_in(&own, &subject), None);
        let near = ["Hull insurance: 2 million euros for every charter."];
        assert_eq!(cover.unmet_in(&near, &subject), None);
        // An amount in another measure, said of the question's subject.
        let lost = asks("How much logbook history can vanish in a power cut?");
        let subject = stemmed(&["logbook", "history", "vanish", "power", "cut"]);
        let own =
            ["Logbook history is restored to a point no more than 24 hours before a power cut."];
        assert_eq!(lost.unmet_in(&own, &subject), None);
        let other = ["Logbooks are printed every 24 hours."];
        assert_eq!(lost.unmet_in(&other, &subject), Some(Kind::Number));
    }

    #[test]
    fn a_count_of_days_is_not_answered_by_a_word_for_no_time() {
        let days = asks("How many days may a guest stay in the cabin?");
        assert_eq!(
            days.unmet("Guests must leave the cabin immediately when asked."),
            Some(Kind::Duration)
        );
        assert_eq!(days.unmet("A guest may stay for up to 14 days."), None);
        assert_eq!(days.unmet("A guest may stay for a week."), None);
        // "How long" is answered by a word for no time.
        let long = asks("How long may a guest stay after checkout?");
        assert_eq!(long.unmet("Guests leave immediately after checkout."), None);
    }

    #[test]
    fn how_much_of_a_period_noun_asks_for_a_duration() {
        assert_eq!(
            kinds("How much notice must a tenant give before leaving the flat?"),
            (vec![Kind::Duration], 0)
        );
        assert_eq!(
            kinds("How much leave does a new steward get?"),
            (vec![Kind::Duration], 0)
        );
        assert_eq!(
            kinds("How much sand does the playground need?"),
            (vec![Kind::Number], 0)
        );
    }

    #[test]
    fn a_place_asked_for_by_its_possessive_wants_a_name() {
        assert_eq!(
            kinds("Which country's courts hear disputes about the lease?"),
            (vec![Kind::Name], 0)
        );
        let law = asks("Which state's law governs the lease?");
        assert_eq!(
            law.unmet("The lease is governed by the law of the State of Victoria."),
            None
        );
        assert_eq!(
            law.unmet("the lease is governed by applicable law."),
            Some(Kind::Name)
        );
    }

    #[test]
    fn nouns_of_money_and_time_are_named_by_their_values() {
        let terms: Vec<String> = ["locker", "fee", "deposit"].map(String::from).to_vec();
        assert_eq!(measure_nouns(&terms), vec![("fee".to_owned(), Kind::Money)]);
        assert!(holds(Kind::Money, "A spare key costs 5 euros."));
        // A count names nothing by its number alone.
        let count: Vec<String> = ["number", "locker"].map(String::from).to_vec();
        assert!(measure_nouns(&count).is_empty());
    }

    #[test]
    fn a_question_of_time_between_events_is_answered_by_any_length_of_time() {
        let terms = ["long".to_owned(), "launch".to_owned()];
        let bounded = asks("How long after launch may a hull be repainted?");
        assert_eq!(
            time_degree(&bounded, &terms),
            Some(("long".to_owned(), Kind::Duration))
        );
        let often = asks("How often, after a storm, must they be checked?");
        assert_eq!(
            time_degree(&often, &["often".to_owned()]),
            Some(("often".to_owned(), Kind::Frequency))
        );
        // A question that measures a subject wants a value about it (the verb "kept" is said
        // of every kept thing, not the subject).
        let kept = asks("How long are guest passes kept by the harbour office?");
        assert_eq!(kept.subject, ["guest", "passes"].map(stem));
        assert_eq!(time_degree(&kept, &terms), None);
        let inspected = asks("How often is the whole slipway inspected?");
        assert_eq!(time_degree(&inspected, &["often".to_owned()]), None);
        assert_eq!(time_degree(&bounded, &["launch".to_owned()]), None);
    }

    #[test]
    fn a_fraction_in_words_is_a_number() {
        let share = asks("How much of the club's budget may go to travel?");
        assert_eq!(
            share.unmet("Travel should take no more than about a quarter of the budget."),
            None
        );
        assert_eq!(share.unmet("Two-thirds of the members must agree."), None);
        assert_eq!(share.unmet("Half of the berths are for visitors."), None);
        // An ordinal and "on behalf of" are no share.
        assert_eq!(
            share.unmet("The third party acts on behalf of the club."),
            Some(Kind::Number)
        );
    }

    #[test]
    fn a_degree_as_far_as_a_need_allows_answers_a_question_of_that_degree() {
        let old = asks("How old may the charts in the chart room be?");
        assert_eq!(old.unmet("Charts are kept as old as practical."), None);
        assert_eq!(
            old.unmet("Charts are replaced when the office can."),
            Some(Kind::Number)
        );
        let long = asks("How long are berth contracts kept?");
        assert_eq!(
            long.unmet("Contracts are kept for as long as necessary."),
            None
        );
        assert!(long.answered_by(Kind::Extent, "kept for as long as is needed"));
        // Another degree's idiom answers nothing.
        assert_eq!(
            long.unmet("Contracts are signed as soon as possible."),
            Some(Kind::Extent)
        );
    }

    #[test]
    fn how_much_time_asks_for_a_length_of_time_counted_in_any_unit_of_effort() {
        assert_eq!(
            kinds("How much volunteer time must a member give the club?"),
            (vec![Kind::Duration], 0)
        );
        assert_eq!(
            kinds("How much paid leave time does a steward get?"),
            (vec![Kind::Duration], 0)
        );
        assert_eq!(
            kinds("How much is paid for a mooring?"),
            (vec![Kind::Money], 0)
        );
        assert!(holds(
            Kind::Duration,
            "Each member gives 3 person-days of work on the slipway a season."
        ));
        assert!(holds(Kind::Duration, "The refit took two man-weeks."));
        assert!(!holds(
            Kind::Duration,
            "The person-in-charge signs the log."
        ));
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(super::super::all_compile(&[
            &BOUNDARY,
            &INTERROGATIVE,
            &TIME_UNIT,
            &MONEY_VERB,
            &AS_FAR_AS_NEEDED,
            &FRACTION_A,
            &DURATION_A,
            &TIMELESS,
            &FREQUENCY_A,
            &MONEY_A,
            &NUMBER_A,
            &BOUNDED_TIME,
            &ARTICLE_DURATION,
            &DATE_A,
            &COUNTED_FROM,
        ]));
    }

    #[test]
    fn a_length_counted_in_events_answers_how_long() {
        let ask = asks("Once a member moves away, the club holds their berth for how long?");
        assert_eq!(
            ask.unmet("A member who moves away keeps the berth for a period of two seasons."),
            None
        );
        assert_eq!(
            ask.unmet("A member who moves away keeps the berth and pays the usual fee."),
            Some(Kind::Extent)
        );
    }

    #[test]
    fn the_interrogative_names_the_value_an_ask_wants() {
        assert_eq!(
            kinds("Within how many days must a tenant be told of a rent increase?"),
            (vec![Kind::Duration], 0)
        );
        assert_eq!(
            kinds("How often are fire extinguishers inspected?"),
            (vec![Kind::Frequency], 0)
        );
        assert_eq!(
            kinds("What is the annual membership fee for the club?"),
            (vec![Kind::Money], 0)
        );
        assert_eq!(
            kinds("How much does the city charge for a parking permit?"),
            (vec![Kind::Money], 0)
        );
        assert_eq!(
            kinds("What minimum font size does the style guide require?"),
            (vec![Kind::Number], 0)
        );
        assert_eq!(
            kinds("How many members form a quorum of the board?"),
            (vec![Kind::Number], 0)
        );
        // A time or a length: a number, or a time an event bounds.
        assert_eq!(
            kinds("For a lease in Ontario, how long is the notice period?"),
            (vec![Kind::Extent], 0)
        );
        // A rate is a number, in any domain.
        assert_eq!(
            kinds("What interest rate is charged on a late rent payment?"),
            (vec![Kind::Number], 0)
        );
        // The noun phrase ends before the verb that takes an object.
        assert_eq!(
            kinds("What fax number reaches the front desk?"),
            (vec![Kind::Number], 0)
        );
        // What an ask counts, if anything.
        let counted = |q: &str| asks(q).counted;
        assert_eq!(counted("How many spare keys does each flat get?"), ["keys"]);
        assert_eq!(
            counted("How many members form a quorum of the board?"),
            ["members"]
        );
        assert_eq!(
            counted("What is the maximum number of guests a member may bring?"),
            ["guests"]
        );
        assert!(counted("How many days may a guest stay?").is_empty());
        // A version is what is counted, though no content word of a question.
        assert_eq!(
            counted("How many earlier versions of the tide tables are kept?"),
            ["versions"]
        );
        assert!(counted("What maximum length may a mooring line have?").is_empty());
        // Such an ask is met only by a number that counts that thing.
        let a = asks("How many guests may a member bring?");
        let none = HashSet::new();
        assert_eq!(
            a.unmet_in(
                &["Guests sign the book at the door; the bar closes at 11."],
                &none
            ),
            Some(Kind::Number)
        );
        assert_eq!(
            a.unmet_in(&["A member may bring up to three guests."], &none),
            None
        );
        // A question of degree: a size is a number, how soon is a time.
        assert_eq!(
            kinds("How large may a parcel for the locker be?"),
            (vec![Kind::Number], 0)
        );
        assert_eq!(
            kinds("How quickly must a broken lift be reported?"),
            (vec![Kind::Extent], 0)
        );
        assert!(holds(
            Kind::Extent,
            "Report it immediately to the caretaker."
        ));
        assert!(!holds(Kind::Extent, "Report it to the caretaker."));
        assert_eq!(
            kinds("How long may a fishing rod be on the pier?"),
            (vec![Kind::Extent], 0)
        );
        // Which organisation: a name.
        assert_eq!(
            kinds("Which courier delivers the archive boxes?"),
            (vec![Kind::Name], 0)
        );
        assert_eq!(kinds("What auditor is appointed?"), (vec![Kind::Name], 0));
        // A plural noun after it is the head, not a verb, and a plural organisation asks for
        // a kind of it: no name is asked.
        assert_eq!(kinds("Which suppliers are critical?"), (vec![], 1));
        assert_eq!(
            kinds("Which bank accounts are reconciled monthly?"),
            (vec![], 1)
        );
        let courier = asks("Which courier delivers the archive boxes?");
        assert_eq!(
            courier.unmet("Archive boxes are collected by courier every Friday."),
            Some(Kind::Name)
        );
        assert_eq!(
            courier.unmet("Archive boxes are collected by Nordic Express every Friday."),
            None
        );
        // A capital that opens a sentence, a cell or an item names nothing.
        assert_eq!(
            courier.unmet("Boxes are sealed. Couriers collect them.\tWeekly"),
            Some(Kind::Name)
        );
        let pass = asks("How long does a gym day pass last?");
        assert_eq!(
            pass.unmet("A day pass is good for the day of purchase only."),
            None
        );
        assert_eq!(
            pass.unmet("Lockers stay closed until the member returns."),
            None
        );
        assert_eq!(pass.unmet("A day pass lasts 24 hours."), None);
        assert_eq!(
            pass.unmet("Day passes are sold at the front desk."),
            Some(Kind::Extent)
        );
    }

    #[test]
    fn a_question_without_a_value_noun_is_open() {
        assert_eq!(kinds("What must a landlord disclose?"), (vec![], 1));
        assert_eq!(kinds("Why is the warranty void?"), (vec![], 1));
        assert_eq!(kinds("Describe the appeals procedure."), (vec![], 1));
        // Choosing among things is not asking for an amount.
        assert_eq!(
            kinds("Which price should the seller use when no list price is published?"),
            (vec![], 1)
        );
        // A value noun far from the interrogative is the topic, not what is asked.
        assert_eq!(
            kinds("What must a retailer do when a customer disputes the price of an item?"),
            (vec![], 1)
        );
        // A value noun after the head of the phrase ("purpose of the fee") is not asked for.
        assert_eq!(
            kinds("What is the purpose of the annual fee for members?"),
            (vec![], 1)
        );
    }

    #[test]
    fn the_head_of_a_long_noun_phrase_names_the_value() {
        assert_eq!(
            kinds("What is the largest permitted cargo container size for the ferry?"),
            (vec![Kind::Number], 0)
        );
        assert_eq!(
            kinds("What is the oldest supported firmware version?"),
            (vec![Kind::Version], 0)
        );
        // A relative clause without "that" closes the question.
        assert_eq!(
            kinds("What is the lowest firmware version Harbourside accepts?"),
            (vec![Kind::Version], 0)
        );
        assert_eq!(
            kinds("What is the greatest hull length Harbourside lifts?"),
            (vec![Kind::Number], 0)
        );
        assert_eq!(
            kinds("What is the mooring fee refund process?"),
            (vec![], 1)
        );
    }

    #[test]
    fn which_version_or_date_asks_for_it_and_which_price_chooses() {
        assert_eq!(
            kinds("Which firmware version must the harbour radios run?"),
            (vec![Kind::Version], 0)
        );
        assert_eq!(
            kinds("Which date must berth fees be paid by?"),
            (vec![Kind::Date], 0)
        );
        assert_eq!(
            kinds("Which fee applies to late winter storage?"),
            (vec![], 1)
        );
    }

    #[test]
    fn a_value_in_the_asked_unit_about_something_else_is_not_on_the_subject() {
        let a = asks("For how many years is the harbour master appointed?");
        let subject: HashSet<String> = ["year", "harbour", "master", "appoint"]
            .into_iter()
            .map(stem)
            .collect();
        let other = [
            "The harbour master may appoint a deputy.",
            "Berth holders must have kept a boat here for at least one year.",
        ];
        assert_eq!(a.unmet_in(&other, &subject), Some(Kind::Duration));
        let answer = ["The harbour master is appointed for three years."];
        assert_eq!(a.unmet_in(&answer, &subject), None);
        // "How often" asks a frequency; "often" is no word the quote must hold.
        // (The slipway's name is the document's, left out of the subject by the caller.)
        let often = asks("How often is the slipway inspected?");
        let degree: HashSet<String> = std::iter::once(stem("often")).collect();
        assert_eq!(
            often.unmet_in(&["Checks take place every 3 months."], &degree),
            None
        );
        // Quotes that name none of the subject's own words are tied to it by the unit alone.
        let reworded = ["The post is held for three years at a time."];
        assert_eq!(a.unmet_in(&reworded, &subject), None);
        assert!(names_a_unit(&stem("minutes")) && names_a_unit(&stem("megabytes")));
        assert!(!names_a_unit(&stem("harbour")));
    }

    #[test]
    fn a_question_for_the_months_is_answered_by_month_names() {
        let a = asks("In which months is the slipway closed?");
        assert_eq!(a.values, vec![Kind::Date]);
        assert_eq!(
            a.unmet("The slipway is closed in January and August."),
            None
        );
        assert_eq!(
            a.unmet("The slipway closes every 3 months."),
            Some(Kind::Date)
        );
    }

    #[test]
    fn a_dotted_version_answers_a_question_for_a_version_but_a_clause_number_does_not() {
        let table = "Component Minimum version\nChart plotter 4.12.2\nRadar A recent release.";
        assert!(holds(Kind::Version, table));
        // The same digits as a count would be a clause reference, not a value.
        assert!(!holds(Kind::Number, "Chart plotter 4.12.2"));
        assert!(!holds(Kind::Version, "as set out in section 4.12.2"));
        assert!(!holds(Kind::Version, "Any recent release will do."));
        // Written as versions are: dotted, after "version" or a name.
        assert!(holds(Kind::Version, "The harbour app is now at version 7."));
        assert!(holds(
            Kind::Version,
            "Plotters must run Seachart 17 or later."
        ));
        // Not a section of a manual page, a range, a count or a table's number.
        assert!(!holds(
            Kind::Version,
            "Please see tide-table(5) for details."
        ));
        assert!(!holds(
            Kind::Version,
            "Codes 30-99 are reserved for the harbour office."
        ));
        assert!(!holds(
            Kind::Version,
            "Three berths are kept for 2 boats each."
        ));
        assert!(!holds(Kind::Version, "Table 3. Berth fees"));
    }

    #[test]
    fn compound_questions_are_split_into_asks() {
        assert_eq!(
            kinds("How often is the boiler serviced, and who keeps the service log?"),
            (vec![Kind::Frequency], 1)
        );
        assert_eq!(
            kinds("How often must keys be changed, and what minimum key length is required?"),
            (vec![Kind::Frequency, Kind::Number], 0)
        );
        assert_eq!(
            kinds("How frequently are audits run, and is there a template for them?"),
            (vec![Kind::Frequency], 1)
        );
        // "and" inside one ask does not split it.
        assert_eq!(
            kinds("How many days do tenants and landlords have to object?"),
            (vec![Kind::Duration], 0)
        );
    }

    #[test]
    fn a_value_about_something_else_does_not_answer_the_subject_asked() {
        let a = asks("How long are canoe permits valid at the lake club?");
        let subject = stemmed(&["canoe", "permit"]);
        let quotes = [
            "Canoe permits are issued by the harbour office.",
            "The lake club elects its board for two years.",
        ];
        assert!(a.unmet_in(&quotes, &subject).is_some());
        let answered = ["Canoe permits are valid for two seasons of six months."];
        assert!(a.unmet_in(&answered, &subject).is_none());
        assert!(a.unmet_in(&quotes, &HashSet::new()).is_none());
        // A clause's number is not the value asked for.
        let numbered = asks("How long is the canoe permit?");
        assert!(
            numbered
                .unmet_in(&["3.1 Canoe permits are issued by the office."], &subject)
                .is_some()
        );
    }

    #[test]
    fn an_unmet_value_counts_only_when_every_ask_wants_one() {
        let only = asks("How many days does a buyer have to return goods?");
        assert_eq!(
            only.unmet("Goods may be returned in their original packaging."),
            Some(Kind::Duration)
        );
        assert_eq!(only.unmet("Goods may be returned within 14 days."), None);
        let mixed = asks("How often are smoke alarms tested, and who tests them?");
        assert_eq!(mixed.unmet("The caretaker tests the smoke alarms."), None);
    }

    #[test]
    fn a_value_asked_in_a_unit_is_met_only_by_a_number_in_that_unit() {
        let a = asks("What is the largest attachment size in megabytes the mail server accepts?");
        assert_eq!(a.units, vec!["megabytes"]);
        assert_eq!(
            a.unmet("The server rejects messages with more than one attachment."),
            Some(Kind::Number)
        );
        assert_eq!(a.unmet("Attachments over 25 MB are rejected."), None);
        assert_eq!(a.unmet("Attachments over 25MB are rejected."), None);
        assert!(holds_in("characters", "at most twelve characters long"));
        assert!(holds_in("percent", "a quota of 80% of the disk"));
        assert!(!holds_in("percent", "at most 80 users"));
        // "in" followed by a word that is no unit names none.
        assert!(
            asks("What is the number of files in directories under /srv?")
                .units
                .is_empty()
        );
    }

    #[test]
    fn a_number_answers_only_next_to_the_noun_it_counts() {
        let a = asks("How many reviewers must approve a new library before release?");
        assert_eq!(a.nouns, vec!["reviewers"]);
        assert!(!a.answered_by(Kind::Number, "Only one library may provide the parser."));
        assert!(a.answered_by(Kind::Number, "Two reviewers approve every release."));
        let m = asks("What file mode should the spool directory have?");
        assert_eq!(m.nouns, vec!["mode"]);
        assert!(m.answered_by(Kind::Number, "It should have mode 1733 and belong to mail."));
        assert!(!m.answered_by(Kind::Number, "3.18. /var/spool : Spool files"));
        // Kinds with units of their own need no noun.
        let d = asks("How many days may a refund take?");
        assert!(d.answered_by(Kind::Duration, "Refunds are paid within 14 days."));
    }

    #[test]
    fn a_date_is_asked_for_by_name_and_given_by_a_day_or_a_time_from_an_event() {
        assert_eq!(
            kinds("By what date must the annual return be filed?"),
            (vec![Kind::Date], 0)
        );
        assert!(holds(
            Kind::Date,
            "The return is filed by 30 April each year."
        ));
        assert!(holds(Kind::Date, "Filing opened on March 3, 2021."));
        assert!(holds(Kind::Date, "Returns are collected every Friday."));
        assert!(holds(
            Kind::Date,
            "It is due within 60 days of the year end."
        ));
        assert!(holds(
            Kind::Date,
            "Notice goes out two weeks before the vote."
        ));
        assert!(!holds(Kind::Date, "Returns are filed every twelve months."));
        // "may" is a modal, not the month.
        assert!(!holds(Kind::Date, "Members may file it late."));
    }

    #[test]
    fn a_time_an_article_counts_is_a_duration_unless_it_states_a_frequency() {
        assert!(holds(Kind::Duration, "Wait a week before you appeal."));
        assert!(holds(
            Kind::Duration,
            "If nobody answers (within a reasonable time -- a day or so), ask again."
        ));
        assert!(holds(Kind::Duration, "The review takes several weeks."));
        assert!(holds(
            Kind::Duration,
            "Allow a couple of days for the reply."
        ));
        assert!(!holds(Kind::Duration, "The committee meets once a month."));
        assert!(!holds(Kind::Duration, "Backups run three times a day."));
    }

    #[test]
    fn how_many_counts_the_noun_before_its_verb_and_people_count_anyone() {
        // The verb after the counted noun: a word a preposition follows that is not plural.
        let a = asks("How many inspectors sit on the harbour panel?");
        assert_eq!(a.counted, vec!["inspectors"]);
        let a = asks("How many vacation days per year does a clerk get?");
        assert_eq!(a.values, vec![Kind::Duration]);
        // People are counted by whatever noun the text counts them by, as members of what
        // they serve on.
        let a = asks("How many people serve on the harbour panel?");
        assert!(a.counted.is_empty() && a.nouns.is_empty(), "{a:?}");
        assert_eq!(a.subject, vec!["harbor", "panel"]);
        assert!(a.names_subject("The harbour panel is a group of four trustees."));
        assert_eq!(
            a.unmet_in(&["The panel is a group of four trustees."], &HashSet::new()),
            None
        );
    }

    #[test]
    fn a_count_is_read_through_a_word_for_number_and_an_abbreviated_noun() {
        let a = asks("What is the smallest number of stewards the club keeps?");
        assert_eq!(
            a.unmet_in(
                &["The board names stewards as needed to keep their number at a minimum of six."],
                &HashSet::new()
            ),
            None
        );
        // A number elsewhere in the sentence counts something else.
        assert_eq!(
            a.unmet_in(
                &["Stewards are named by the board and serve for two seasons."],
                &HashSet::new()
            ),
            Some(Kind::Number)
        );
        // "chars" is "characters" cut short; "this one" is no count.
        let a = asks("How many characters may a ticket code have?");
        assert!(a.answered_by(Kind::Number, "Ticket codes hold 12 chars at most."));
        let a = asks("How many failed attempts lock a ticket machine?");
        assert!(!a.answered_by(
            Kind::Number,
            "This one enables the logging of failed attempts."
        ));
    }

    #[test]
    fn a_follow_up_without_a_question_of_its_own_asks_what_the_earlier_one_asked() {
        let earlier = "How long does the harbour master have to answer a complaint?";
        let a = asks_in_thread("And to decide an appeal?", earlier);
        assert_eq!(a.values, vec![Kind::Extent]);
        assert!(a.subject.is_empty());
        let b = asks_in_thread("What about visitors?", "What fee do members pay?");
        assert_eq!(b.values, vec![Kind::Money]);
        // A question of its own keeps its own asks.
        assert!(asks_in_thread("And is it free?", earlier).values.is_empty());
        assert_eq!(
            asks_in_thread("And who decides it?", earlier).values,
            Vec::new()
        );
        assert!(
            asks_in_thread("Can the fee be waived?", earlier)
                .values
                .is_empty()
        );
        assert!(
            asks_in_thread("And to decide an appeal?", "")
                .values
                .is_empty()
        );
    }

    #[test]
    fn detectors_find_values_of_their_kind_only() {
        assert!(holds(Kind::Duration, "within 72 hours of discovery"));
        assert!(holds(Kind::Duration, "kept for seven years"));
        assert!(!holds(
            Kind::Duration,
            "information must sometimes be kept private for a time"
        ));
        assert!(holds(Kind::Frequency, "the register is reviewed annually"));
        assert!(holds(Kind::Frequency, "at least once a year"));
        // "One of the …" picks a member of a group; "no one" is a pronoun: no count.
        assert!(!holds(
            Kind::Number,
            "Lifting is one of the tasks the yard does itself"
        ));
        assert!(!holds(Kind::Number, "no one may sleep aboard"));
        assert!(holds(Kind::Number, "one boat per member"));
        assert!(holds(Kind::Number, "one of 12 berths"));
        // A day or month of the calendar that comes round.
        assert!(holds(
            Kind::Frequency,
            "the moorings are inspected every March"
        ));
        assert!(holds(Kind::Frequency, "the bar closes early each Sunday"));
        assert!(!holds(Kind::Frequency, "every member may vote in May"));
        assert!(!holds(
            Kind::Frequency,
            "the files required on every system"
        ));
        assert!(holds(Kind::Money, "a fee of $50 per application"));
        assert!(holds(Kind::Money, "a penalty of USD 10,000"));
        assert!(holds(Kind::Money, "the service is free of charge"));
        // A currency named after the amount, with the country's name between them.
        assert!(holds(
            Kind::Money,
            "fines of up to 40,000 Freedonian crowns"
        ));
        assert!(holds(Kind::Money, "a deposit of 300 rupees"));
        assert!(holds(Kind::Money, "cover of 2 million euros"));
        assert!(!holds(Kind::Money, "within 30 Business Days"));
        assert!(!holds(
            Kind::Money,
            "how to use separately published modules"
        ));
        assert!(holds(Kind::Number, "the directory has mode 1777"));
        assert!(holds(Kind::Number, "at least twelve characters"));
        // "A single user" names no quantity.
        assert!(!holds(Kind::Number, "when booted in single user mode"));
        // A clause number is a reference, not a value.
        assert!(!holds(
            Kind::Number,
            "as required by section 4.2.1 of the code"
        ));
    }

    #[test]
    fn a_value_of_another_model_of_the_kind_answers_another_question() {
        let asks = asks("How many berths does the Mk2 pontoon have?");
        let subject = stemmed(&["berths", "mk2", "pontoon"]);
        let other = ["The Mk1 pontoon has 40 berths."];
        assert_eq!(asks.unmet_in(&other, &subject), Some(Kind::Number));
        let own = ["The Mk2 pontoon has 48 berths."];
        assert_eq!(asks.unmet_in(&own, &subject), None);
        assert!(!is_mark("6.1.1"));
        assert!(is_mark("x200"));
    }

    #[test]
    fn choosing_which_number_asks_for_a_number() {
        assert_eq!(
            asks("Which channel number does the harbour radio use?").values,
            vec![Kind::Number]
        );
        assert!(
            asks("Which price applies to a winter berth?")
                .values
                .is_empty()
        );
    }
}
