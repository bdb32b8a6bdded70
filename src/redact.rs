//! PII redaction for what leaves the machine.
//!
//! Owns: finding personal data (emails, phone numbers, IBANs, payment card numbers, national
//! ids, and person names the profile lists), replacing it by stable placeholders such as
//! `[EMAIL_1]`, and restoring the originals in text that comes back, also while it streams.
//! Must not: send anything anywhere, or be applied to what is stored locally (the local copy
//! always keeps the real text).

use std::sync::LazyLock;

use regex::Regex;

/// Kinds of personal data, in the order they are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PiiKind {
    /// An e-mail address.
    Email,
    /// An IBAN (checked with its mod-97 check digits).
    Iban,
    /// A payment card number (checked with the Luhn sum).
    Card,
    /// A national id (US SSN, Malaysian NRIC, UK National Insurance number).
    NationalId,
    /// A phone number (international, or national with a trunk 0 and separators).
    Phone,
    /// A person named in the profile's list.
    Person,
}

impl PiiKind {
    fn tag(self) -> &'static str {
        match self {
            Self::Email => "EMAIL",
            Self::Iban => "IBAN",
            Self::Card => "CARD",
            Self::NationalId => "NATIONAL_ID",
            Self::Phone => "PHONE",
            Self::Person => "PERSON",
        }
    }
}

static EMAIL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}").ok()
});
static IBAN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b").ok()
});
static CARD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b\d(?:[ -]?\d){12,18}\b").ok());
static NATIONAL_ID: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:\d{3}-\d{2}-\d{4}|\d{6}-\d{2}-\d{4}|[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D])\b",
    )
    .ok()
});
static PHONE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(0\d{1,4}\) ?\d{3,4}[ .-]?\d{3,4}|\b0\d{1,4}[ -]\d{3,4}[ -]?\d{3,4})\b",
    )
    .ok()
});
static PLACEHOLDER_TAIL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\[[A-Z_]{0,12}\d{0,4}$").ok());

fn luhn(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

fn iban_valid(s: &str) -> bool {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !(15..=34).contains(&compact.len()) {
        return false;
    }
    let rotated = format!("{}{}", &compact[4..], &compact[..4]);
    let mut rem: u32 = 0;
    for c in rotated.chars() {
        let v = match c.to_digit(36) {
            Some(v) => v,
            None => return false,
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

fn accept(kind: PiiKind, m: &str) -> bool {
    match kind {
        PiiKind::Iban => iban_valid(m),
        PiiKind::Card => {
            let digits: Vec<u32> = m.chars().filter_map(|c| c.to_digit(10)).collect();
            (13..=19).contains(&digits.len()) && luhn(&digits)
        }
        PiiKind::Phone => {
            let n = m.chars().filter(char::is_ascii_digit).count();
            (8..=15).contains(&n)
        }
        _ => true,
    }
}

/// What a profile redacts: the patterns plus its list of person names.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    names: Vec<Regex>,
}

impl Redactor {
    /// A redactor for the patterns and these person names (matched whole-word, any case).
    pub fn new(names: &[String]) -> Self {
        let mut sorted: Vec<&String> = names.iter().filter(|n| !n.trim().is_empty()).collect();
        // Longest first, so "Jane Doe" wins over "Jane".
        sorted.sort_by_key(|n| std::cmp::Reverse(n.len()));
        let names = sorted
            .into_iter()
            .filter_map(|n| {
                let words: Vec<String> = n.split_whitespace().map(regex::escape).collect();
                Regex::new(&format!(r"(?i)\b{}\b", words.join(r"\s+"))).ok()
            })
            .collect();
        Self { names }
    }

    /// A session: placeholders stay the same for the same value within it.
    pub fn session(&self) -> Session<'_> {
        Session {
            redactor: self,
            map: Vec::new(),
        }
    }
}

/// One exchange with a remote service: redacts what goes out, restores what comes back.
#[derive(Debug)]
pub struct Session<'a> {
    redactor: &'a Redactor,
    /// (placeholder, original value)
    map: Vec<(String, String)>,
}

impl Session<'_> {
    fn placeholder(&mut self, kind: PiiKind, value: &str) -> String {
        if let Some((p, _)) = self.map.iter().find(|(_, v)| v == value) {
            return p.clone();
        }
        let n = self
            .map
            .iter()
            .filter(|(p, _)| p.starts_with(&format!("[{}_", kind.tag())))
            .count()
            + 1;
        let p = format!("[{}_{n}]", kind.tag());
        self.map.push((p.clone(), value.to_owned()));
        p
    }

    fn replace(&mut self, text: &str, kind: PiiKind, re: &Regex) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for m in re.find_iter(text) {
            if !accept(kind, m.as_str()) {
                continue;
            }
            out.push_str(&text[last..m.start()]);
            out.push_str(&self.placeholder(kind, m.as_str()));
            last = m.end();
        }
        out.push_str(&text[last..]);
        out
    }

    /// `text` with every piece of personal data replaced by a placeholder.
    pub fn redact(&mut self, text: &str) -> String {
        let mut t = text.to_owned();
        for (kind, re) in [
            (PiiKind::Email, &*EMAIL),
            (PiiKind::Iban, &*IBAN),
            (PiiKind::Card, &*CARD),
            (PiiKind::NationalId, &*NATIONAL_ID),
            (PiiKind::Phone, &*PHONE),
        ] {
            if let Some(re) = re {
                t = self.replace(&t, kind, re);
            }
        }
        let names = self.redactor.names.clone();
        for re in &names {
            t = self.replace(&t, PiiKind::Person, re);
        }
        t
    }

    /// `text` with the placeholders of this session replaced by the original values.
    pub fn restore(&self, text: &str) -> String {
        let mut t = text.to_owned();
        for (p, v) in &self.map {
            t = t.replace(p.as_str(), v);
        }
        t
    }

    /// How many distinct values were redacted.
    pub fn redacted(&self) -> usize {
        self.map.len()
    }

    /// A restorer for text that arrives in pieces (a placeholder may be split across them).
    pub fn stream(&self) -> StreamRestorer<'_> {
        StreamRestorer {
            session: self,
            held: String::new(),
        }
    }
}

/// Restores placeholders in streamed text, holding back a piece that may be the start of one.
#[derive(Debug)]
pub struct StreamRestorer<'a> {
    session: &'a Session<'a>,
    held: String,
}

impl StreamRestorer<'_> {
    /// Adds a piece; returns the text that is safe to show now.
    pub fn push(&mut self, piece: &str) -> String {
        self.held.push_str(piece);
        let cut = PLACEHOLDER_TAIL
            .as_ref()
            .and_then(|re| re.find(&self.held))
            .map_or(self.held.len(), |m| m.start());
        let ready: String = self.held[..cut].to_owned();
        self.held.drain(..cut);
        self.session.restore(&ready)
    }

    /// The rest at the end of the stream.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.held);
        self.session.restore(&rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_each_kind_and_restores_the_originals() {
        let r = Redactor::new(&["Jane Doe".into(), "Ahmad bin Ali".into()]);
        let mut s = r.session();
        let text = "Write to jane.doe@example.com or call +60 3-2698 8044 / 020 7946 0958. \
                    IBAN GB82 WEST 1234 5698 7654 32, card 4111 1111 1111 1111, \
                    NRIC 850101-14-5567, SSN 078-05-1120. Jane Doe met ahmad bin ali.";
        let out = s.redact(text);
        for secret in [
            "jane.doe@example.com",
            "2698 8044",
            "7946 0958",
            "GB82 WEST",
            "4111 1111",
            "850101-14-5567",
            "078-05-1120",
            "Jane Doe",
            "ahmad bin ali",
        ] {
            assert!(!out.contains(secret), "{secret} leaked: {out}");
        }
        for p in [
            "[EMAIL_1]",
            "[PHONE_1]",
            "[PHONE_2]",
            "[IBAN_1]",
            "[CARD_1]",
            "[NATIONAL_ID_1]",
            "[NATIONAL_ID_2]",
            "[PERSON_1]",
            "[PERSON_2]",
        ] {
            assert!(out.contains(p), "{p} missing: {out}");
        }
        assert_eq!(s.restore(&out), text);
    }

    #[test]
    fn leaves_regulatory_numbers_alone() {
        let r = Redactor::new(&[]);
        let mut s = r.session();
        let text = "Under section 4.2.1, by 2024-01-01, a ratio of 8 per cent applies to \
                    RM 1 000 000 and 12 months; see ISO 27001:2022 and account 1234 5678 9012 3456.";
        // The last number fails the Luhn check, so it is not a card.
        assert_eq!(s.redact(text), text);
        assert_eq!(s.redacted(), 0);
    }

    #[test]
    fn same_value_same_placeholder_and_streaming_restores_split_placeholders() {
        let r = Redactor::new(&["Jane Doe".into()]);
        let mut s = r.session();
        let out = s.redact("Jane Doe wrote; JANE DOE signed; a@b.io too");
        assert_eq!(out, "[PERSON_1] wrote; [PERSON_2] signed; [EMAIL_1] too");
        let mut st = s.stream();
        let mut shown = String::new();
        for piece in ["Signed by [PER", "SON_1] and [", "EMAIL_1", "]. Done [x"] {
            shown.push_str(&st.push(piece));
        }
        shown.push_str(&st.finish());
        assert_eq!(shown, "Signed by Jane Doe and a@b.io. Done [x");
    }
}
