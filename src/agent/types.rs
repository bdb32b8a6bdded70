//! The agent's data: requests, run state, answers, citations, confidence and events.
//!
//! Owns: every type that is checkpointed, stored with a message, streamed as an event or
//! crosses to a front end. Closed enums throughout; the checkpoint format is versioned by
//! [`CHECKPOINT_FORMAT`]. Must not: contain behaviour beyond small helpers.

use serde::{Deserialize, Serialize};

/// Version of the serialised [`RunState`]; a checkpoint of another version is not resumed.
pub const CHECKPOINT_FORMAT: i64 = 1;
/// Longest question accepted, in characters.
pub const MAX_QUESTION_CHARS: usize = 4000;
/// Most documents one action may use.
pub const MAX_DOCUMENTS: usize = 5;

/// What the user wants done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Answer a question.
    Inquire,
    /// Summarise 1–5 documents.
    Summarize,
    /// Compare 2–5 documents.
    Compare,
    /// Audit a text or document against 1–5 documents.
    Audit,
}

impl Action {
    /// Stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Inquire => "inquire",
            Self::Summarize => "summarize",
            Self::Compare => "compare",
            Self::Audit => "audit",
        }
    }

    /// Parses a tag such as `@compare` or `summarise`.
    pub fn parse(s: &str) -> Option<Self> {
        match s
            .trim()
            .trim_start_matches('@')
            .to_ascii_lowercase()
            .as_str()
        {
            "inquire" | "ask" | "question" => Some(Self::Inquire),
            "summarize" | "summarise" | "summary" => Some(Self::Summarize),
            "compare" | "comparison" => Some(Self::Compare),
            "audit" => Some(Self::Audit),
            _ => None,
        }
    }
}

/// How answers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Verbatim sentences from the library; no model; offline and deterministic.
    #[default]
    Extractive,
    /// An LLM writes the answer from the retrieved passages; quotes are verified.
    Generative,
}

/// A user message to answer (also the desktop's IPC payload; absent fields take defaults).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AskRequest {
    /// Existing thread, or `None` for a new one.
    pub thread_id: Option<String>,
    /// Idempotency key of the user message (generated when absent).
    pub message_id: Option<String>,
    /// The message text (may hold `@<document id>` and `@action` tags).
    pub text: String,
    /// Documents tagged explicitly (ids).
    pub documents: Vec<String>,
    /// Restrict to a set.
    pub set: Option<String>,
    /// Explicit action.
    pub action: Option<Action>,
    /// Answering mode (default: generative when an LLM is configured, else extractive).
    pub mode: Option<Mode>,
    /// Also search the web (`--web`, or `@web` in the text); questions only.
    pub web: bool,
}

/// How sure the document resolver is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Certainty {
    /// Proceed and say which documents.
    High,
    /// Ask the user to confirm.
    Medium,
    /// Ask the user to specify.
    Low,
}

/// Documents an action works on, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DocResolution {
    /// Tagged explicitly.
    pub explicit: Vec<String>,
    /// Inferred from the conversation or the message.
    pub inferred: Vec<String>,
    /// explicit ∪ inferred, in order.
    pub resolved: Vec<String>,
    /// Certainty of the inference (`None` when nothing was inferred).
    pub certainty: Option<Certainty>,
    /// Why these documents.
    pub reasoning: String,
}

/// Confidence level of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// ✅
    High,
    /// ⚠️
    Medium,
    /// 🔴
    Low,
}

/// Confidence of an answer with its breakdown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Confidence {
    /// Level.
    pub level: Level,
    /// Score in 0–1.
    pub score: f32,
    /// Short reason.
    pub reason: String,
    /// Best vector similarity among the evidence.
    pub retrieval: f32,
    /// Share of the question's content terms found in the cited passages.
    pub coverage: f32,
    /// Share of proposed quotes that were verified.
    pub verification: f32,
    /// Specific terms of the question (acronyms, codes) that no retrieved passage contains.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Share of the answer's claims (sentences) that its verified quotes support: below 1 when
    /// sentences of a model's answer were left out as not found in the documents; 1 where the
    /// answer is made of quotes.
    #[serde(default = "fully_grounded")]
    pub grounding: f32,
    /// For an answer to a question: the best cosine similarity between one of its quotes (those
    /// cited for what they say, not only for their rank) and the question — whether anything
    /// quoted is close to it in meaning, which a whole passage's similarity blurs. `None` for
    /// the other actions.
    #[serde(default)]
    pub closeness: Option<f32>,
}

fn fully_grounded() -> f32 {
    1.0
}

impl Confidence {
    /// The measures of an answer before the confidence check judges them (level and score are
    /// set there).
    pub fn unjudged(
        retrieval: f32,
        coverage: f32,
        verification: f32,
        missing: Vec<String>,
    ) -> Self {
        Self {
            level: Level::Low,
            score: 0.0,
            reason: String::new(),
            retrieval,
            coverage,
            verification,
            missing,
            grounding: 1.0,
            closeness: None,
        }
    }

    /// Full confidence for an answer that does not rest on retrieval's judgement (the document
    /// catalogue, an expert's answer), with the reason shown.
    pub fn certain(reason: impl Into<String>) -> Self {
        Self {
            level: Level::High,
            score: 1.0,
            reason: reason.into(),
            retrieval: 1.0,
            coverage: 1.0,
            verification: 1.0,
            missing: Vec::new(),
            grounding: 1.0,
            closeness: None,
        }
    }
}

/// Where a citation points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceType {
    /// A document of the library.
    Document,
    /// A web page.
    Web,
}

/// A verified citation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    /// Document or web.
    pub source_type: SourceType,
    /// Document id.
    pub document_id: String,
    /// Document title.
    pub title: String,
    /// Document version.
    pub version: String,
    /// Original file name.
    pub file_name: String,
    /// Physical page (1-based).
    pub page: u32,
    /// Chunk id.
    pub chunk_id: String,
    /// Verbatim text of the page (or of the web extract), at most 300 characters.
    pub quote: String,
    /// Address of a web citation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The page is a scan read by OCR: Tesseract's mean word confidence on it, in per cent
    /// (the quote is verified against the recognised text like any other).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<u8>,
}

/// Final state of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Answered with citations.
    Answered,
    /// The library does not support an answer.
    Refused,
    /// Waiting for the user's choice.
    NeedsClarification,
    /// The action is not available in this version.
    NotAvailable,
    /// Escalated: waiting for an expert's answer (issue 18 §3).
    WaitingForExpert,
}

/// A choice offered to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChoiceOption {
    /// Stable id passed back with `resume --choose`.
    pub id: String,
    /// Label shown.
    pub label: String,
}

/// Why a run stopped to ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interrupt {
    /// What kind of question.
    pub kind: InterruptKind,
    /// The prompt shown.
    pub prompt: String,
    /// The options.
    pub options: Vec<ChoiceOption>,
}

/// Kinds of interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptKind {
    /// Confirm inferred documents.
    ConfirmDocuments,
    /// Name the documents.
    SpecifyDocuments,
    /// Evidence is weak.
    LowConfidence,
    /// The question went to an expert; the run resumes with the answer.
    WaitingForExpert,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person asking.
    User,
    /// PolicyPal.
    Assistant,
}

impl Role {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }

    /// The role a stored name means.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "user" => Some(Self::User),
            "assistant" => Some(Self::Assistant),
            _ => None,
        }
    }
}

pub use crate::llm::Usage;

/// A retrieved passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Chunk id.
    pub chunk_id: String,
    /// Document id.
    pub document_id: String,
    /// Chunk text.
    pub text: String,
    /// Offset of the chunk in the document text (characters).
    pub char_start: u64,
    /// Main page.
    pub page: u32,
    /// Vector similarity.
    pub vector_score: f32,
    /// BM25 rank, if found by full text.
    pub text_rank: Option<usize>,
    /// Fused score.
    pub score: f32,
    /// Heading path of the passage ("3 Customer Due Diligence > 3.2 Enhanced measures");
    /// empty when unknown (checkpoints written before it was kept).
    #[serde(default)]
    pub heading: String,
}

/// What the assistant says for a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Outcome.
    pub status: Status,
    /// Text (Markdown) shown to the user, Sources block included.
    pub text: String,
    /// Verified citations, best first.
    pub citations: Vec<Citation>,
    /// Confidence, when evidence was judged.
    pub confidence: Option<Confidence>,
    /// Options (clarification, low confidence, refusal).
    pub options: Vec<ChoiceOption>,
    /// Token usage when an LLM was used.
    pub usage: Option<Usage>,
    /// The structured report of an audit (absent for other actions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<AuditReport>,
}

/// Overall verdict of an audit (spec 002).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    /// No conflict found.
    Compliant,
    /// Only medium or low findings.
    MinorIssues,
    /// At least one critical or high finding.
    MajorViolations,
}

impl AuditStatus {
    /// Label shown to the user.
    pub fn label(self) -> &'static str {
        match self {
            Self::Compliant => "Compliant",
            Self::MinorIssues => "Minor issues",
            Self::MajorViolations => "Major violations",
        }
    }

    /// The verdict that a list of findings amounts to.
    pub fn of(findings: &[Finding]) -> Self {
        if findings.is_empty() {
            Self::Compliant
        } else if findings
            .iter()
            .any(|f| matches!(f.severity, Severity::Critical | Severity::High))
        {
            Self::MajorViolations
        } else {
            Self::MinorIssues
        }
    }
}

/// Severity of a finding, most severe first (the order findings are shown in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Breaks a mandatory rule with serious consequences (only a model judges this).
    Critical,
    /// Breaks a mandatory rule (must, shall, must not).
    High,
    /// Departs from a recommendation (should) or a required value.
    Medium,
    /// Minor departure.
    Low,
}

impl Severity {
    /// Label shown to the user.
    pub fn label(self) -> &'static str {
        match self {
            Self::Critical => "Critical",
            Self::High => "High",
            Self::Medium => "Medium",
            Self::Low => "Low",
        }
    }

    /// Parses a model's spelling ("High", "critical").
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "critical" => Some(Self::Critical),
            "high" => Some(Self::High),
            "medium" | "moderate" => Some(Self::Medium),
            "low" | "minor" => Some(Self::Low),
            _ => None,
        }
    }
}

/// The rule that detected a conflict (extractive audits), or the model (generative ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditRule {
    /// The text does what a clause prohibits.
    ProhibitionBreached,
    /// The text negates or omits what a clause requires.
    ObligationNotMet,
    /// A number or duration of the text is outside the range a clause requires.
    OutOfRange,
    /// The text uses another value (location, mode, channel) than the one a clause requires.
    WrongValue,
    /// A language model judged the conflict (generative mode).
    ModelJudgement,
}

/// One conflict between the audited text and a target document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Target document id.
    pub target_doc_id: String,
    /// Target document label ("Title (Version)").
    pub target_doc_title: String,
    /// Theme of the source the finding belongs to (long sources).
    #[serde(default)]
    pub theme: Option<String>,
    /// Severity.
    pub severity: Severity,
    /// What detected it.
    pub rule: AuditRule,
    /// One-line description of the conflict.
    pub summary: String,
    /// Why it matters.
    pub consequence: String,
    /// The audited statement, verbatim from the source.
    pub source_quote: String,
    /// The clause of the target, verified verbatim on its page.
    pub target: Citation,
    /// What to change.
    pub suggestion: String,
    /// Confidence in the finding, 0–1.
    pub confidence_score: f32,
}

/// A source statement shown next to a target clause that bears on it without a conflict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckedClause {
    /// The audited statement.
    pub source_quote: String,
    /// The clause.
    pub target: Citation,
}

/// The structured result of an audit (spec 002), stored with the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// Verdict.
    pub overall_status: AuditStatus,
    /// Findings grouped by target, then by severity.
    pub findings: Vec<Finding>,
    /// Clauses that bear on the text and were found consistent with it.
    #[serde(default)]
    pub checked: Vec<CheckedClause>,
    /// One-paragraph summary.
    pub summary: String,
    /// Target documents checked.
    pub targets_checked: usize,
    /// Where the audited text came from.
    pub source: AuditSource,
    /// Source statements examined.
    pub statements_checked: usize,
    /// Themes of a long source analysed one by one (spec 002's Mode 2, with a model).
    #[serde(default)]
    pub themes_analyzed: Option<usize>,
}

/// Where the audited text came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AuditSource {
    /// Pasted in the message.
    Message,
    /// An earlier message of the conversation.
    EarlierMessage {
        /// That message's id.
        message_id: String,
    },
    /// A document of the library.
    Document {
        /// Document id.
        document_id: String,
        /// Its label.
        title: String,
    },
}

/// Retrieval metadata stored with an answer (so it can be audited later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RetrievalInfo {
    /// The question as asked.
    pub question: String,
    /// The standalone question used for retrieval.
    pub standalone: String,
    /// The action and how it was chosen.
    pub action: Option<Action>,
    /// How the action was chosen.
    pub intent_reason: String,
    /// The documents and why.
    pub documents: DocResolution,
    /// Answering mode.
    pub mode: Mode,
    /// Passages considered (ids and scores).
    pub evidence: Vec<EvidenceScore>,
    /// The earlier answer this one was served from (semantic cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_from: Option<CacheHit>,
}

/// Where a cached answer came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheHit {
    /// The earlier assistant message.
    pub message_id: String,
    /// The question it answered.
    pub question: String,
    /// Cosine similarity of the two questions.
    pub similarity: f32,
    /// When the earlier answer was given.
    pub answered_at: String,
}

/// A passage's id and scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceScore {
    /// Chunk id.
    pub chunk_id: String,
    /// Vector similarity.
    pub vector_score: f32,
    /// Fused score.
    pub score: f32,
}

/// Events streamed while a run goes on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The run started (thread and message ids are known).
    Started {
        /// Thread id.
        thread_id: String,
        /// Run id.
        run_id: String,
    },
    /// A node started.
    Status {
        /// Human-readable status ("Searching the library").
        message: String,
    },
    /// A piece of answer text.
    Token {
        /// Text.
        text: String,
    },
    /// The sources of the answer.
    Sources {
        /// Citations.
        citations: Vec<Citation>,
    },
    /// The confidence of the answer.
    Confidence {
        /// Confidence.
        confidence: Confidence,
    },
    /// The run stopped to ask the user.
    Clarification {
        /// The question.
        interrupt: Interrupt,
    },
    /// The run finished.
    Done {
        /// The assistant message.
        message: Box<TurnResult>,
    },
}

/// The outcome of a turn as returned and stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnResult {
    /// Thread id.
    pub thread_id: String,
    /// Assistant message id.
    pub message_id: String,
    /// Action of the turn.
    pub action: Option<Action>,
    /// The answer.
    #[serde(flatten)]
    pub answer: Answer,
    /// Retrieval metadata.
    pub retrieval: RetrievalInfo,
    /// The answer was served from the semantic cache (see `retrieval.cached_from`).
    pub cached: bool,
}

/// The run state checkpointed after every node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Format version.
    pub format: i64,
    /// Run id.
    pub run_id: String,
    /// Thread id.
    pub thread_id: String,
    /// Profile id.
    pub profile_id: String,
    /// User message id.
    pub user_message_id: String,
    /// Assistant message id.
    pub assistant_message_id: String,
    /// The message as typed.
    pub question: String,
    /// Answering mode.
    pub mode: Mode,
    /// Explicit document ids.
    pub explicit_documents: Vec<String>,
    /// Set restriction.
    pub set: Option<String>,
    /// Explicit action.
    pub explicit_action: Option<Action>,
    /// Standalone question (after contextualize).
    pub standalone: Option<String>,
    /// Resolved action.
    pub action: Option<Action>,
    /// How the action was chosen.
    pub intent_reason: String,
    /// Resolved documents.
    pub documents: Option<DocResolution>,
    /// Retrieved passages.
    pub evidence: Vec<Evidence>,
    /// The answer being built.
    pub answer: Option<Answer>,
    /// The open question to the user, if interrupted.
    pub pending: Option<Interrupt>,
    /// The user's answer to `pending`.
    pub choice: Option<String>,
    /// The user chose to continue despite low confidence.
    pub continue_anyway: bool,
    /// Search the web too.
    #[serde(default)]
    pub web: bool,
    /// Verified web citations, once searched (kept apart from document citations).
    #[serde(default)]
    pub web_citations: Option<Vec<Citation>>,
    /// Set when the answer was served from the semantic cache.
    #[serde(default)]
    pub cached_from: Option<CacheHit>,
    /// Tokens the model spent routing the message and rewriting a follow-up (generative
    /// mode), added to the answer's.
    #[serde(default)]
    pub rewrite_usage: Option<Usage>,
    /// The documents the model read the message as being about (generative mode; `None`: not
    /// asked or no usable reply).
    #[serde(default)]
    pub routed_documents: Option<Vec<String>>,
    /// The answer the evidence check refused, kept as the draft an expert sees.
    #[serde(default)]
    pub draft: Option<String>,
    /// The expert review this run waits for or was answered by.
    #[serde(default)]
    pub review_id: Option<String>,
    /// Whether the run may read, or reads, the message in the light of the previous turn
    /// although it names no reference (its own answer too weak to show; see
    /// `check_confidence`).
    #[serde(default)]
    pub context_retry: ContextRetry,
    /// Whether the model's documents were set aside after the evidence in them was too weak
    /// to answer, for the deterministic resolver's (see `check_confidence`).
    #[serde(default)]
    pub route_set_aside: bool,
}

/// A second reading of a message in the light of the previous turn (see
/// `RunState::context_retry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextRetry {
    /// The thread has no earlier turn (or the message already used it).
    #[default]
    Unavailable,
    /// An earlier turn exists and the message was read on its own.
    Possible,
    /// The message is being read again with the previous turn's context.
    Taken,
}
