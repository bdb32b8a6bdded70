//! The SQLite store: profiles, sets, documents (and, for the agent, conversations, messages and
//! checkpoints).
//!
//! Owns: the schema (`migrations/`), every SQL statement and the row types. Every statement that
//! reads or writes user data takes the profile id and filters by it, so one profile can never
//! see another's rows. Must not: read PDFs, embed, or touch LanceDB (the `library` module
//! coordinates the two stores).

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{FromRow, SqlitePool};

mod cache;
mod history;
mod review;

pub use cache::{CacheEntry, NewCacheEntry};
pub use history::{CheckpointRow, Conversation, MessageRow, NewCheckpoint, NewMessage};
pub use review::{NewReview, Review, ReviewStatus};

/// Errors of the SQLite store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be opened, read or written.
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    /// The database file could not be created or made private.
    #[error("cannot open the database file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A schema migration failed.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// No profile with that name or id.
    #[error("profile {0:?} not found")]
    ProfileNotFound(String),
    /// A profile with that name exists already.
    #[error("profile {0:?} already exists")]
    ProfileExists(String),
    /// No document with that id in this profile.
    #[error("document {0:?} not found")]
    DocumentNotFound(String),
    /// No set with that name in this profile.
    #[error("set {0:?} not found")]
    SetNotFound(String),
    /// No conversation with that id in this profile.
    #[error("conversation {0:?} not found")]
    ConversationNotFound(String),
    /// A set with that name exists already in this profile.
    #[error("set {0:?} already exists")]
    SetExists(String),
    /// A name (profile or set) is empty, too long or holds control characters.
    #[error("invalid {what} name {name:?}: {reason}")]
    InvalidName {
        /// "profile" or "set".
        what: &'static str,
        /// The rejected name.
        name: String,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// A colour is not one of the preset palette.
    #[error("colour {0:?} is not in the palette ({palette})", palette = PALETTE.join(", "))]
    InvalidColour(String),
    /// An expert review request that does not exist.
    #[error("review request {0:?} not found")]
    ReviewNotFound(String),
    /// An expert review request that was already answered or withdrawn.
    #[error("review request {id:?} is {status} already")]
    ReviewClosed {
        /// The request.
        id: String,
        /// "answered" or "withdrawn".
        status: &'static str,
    },
    /// A value stored in the database is not one this version understands.
    #[error("corrupt value in the database: {0}")]
    Corrupt(String),
}

/// The preset set colours (accessible on light and dark backgrounds).
pub const PALETTE: [&str; 8] = [
    "#2563eb", "#16a34a", "#d97706", "#dc2626", "#7c3aed", "#0891b2", "#db2777", "#4b5563",
];

/// Kind of document: a regulation (external) or a company policy (internal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocType {
    /// An external regulation, standard or law.
    Regulatory,
    /// An internal company policy.
    Policy,
}

impl DocType {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Regulatory => "regulatory",
            Self::Policy => "policy",
        }
    }
}

impl FromStr for DocType {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "regulatory" | "regulation" => Ok(Self::Regulatory),
            "policy" => Ok(Self::Policy),
            other => Err(StoreError::Corrupt(format!("doc type {other:?}"))),
        }
    }
}

/// Lifecycle state of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocStatus {
    /// Being ingested; never searchable in this state.
    Processing,
    /// Fully indexed and searchable.
    Ready,
    /// Ingestion failed; `error` says why.
    Failed,
    /// Switched off by the user; searchable only when named explicitly.
    Disabled,
}

impl DocStatus {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Processing => "processing",
            Self::Ready => "ready",
            Self::Failed => "failed",
            Self::Disabled => "disabled",
        }
    }
}

impl FromStr for DocStatus {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "processing" => Ok(Self::Processing),
            "ready" => Ok(Self::Ready),
            "failed" => Ok(Self::Failed),
            "disabled" => Ok(Self::Disabled),
            other => Err(StoreError::Corrupt(format!("document status {other:?}"))),
        }
    }
}

/// A user profile; everything else belongs to exactly one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromRow)]
pub struct Profile {
    /// Stable id (UUID).
    pub id: String,
    /// Unique display name.
    pub name: String,
    /// The organisation the profile works for ("Acme Bank"), used in model prompts.
    pub organisation: String,
    /// Industry, used to tune answers ("Banking").
    pub industry: String,
    /// Jurisdiction ("Malaysia").
    pub location: String,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// Replace personal data by placeholders in anything sent to a remote model or the web.
    pub redact_pii: bool,
    /// Person names to redact besides the patterns (emails, phones, IBANs, cards, ids).
    #[sqlx(try_from = "String")]
    pub redact_names: NameList,
    /// Answers the questions other profiles on this machine escalate to an expert.
    pub reviewer: bool,
}

/// What a profile tells the model about its user (spec 002's user context).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserContext {
    /// Organisation ("Acme Bank").
    pub organisation: String,
    /// Industry ("Banking").
    pub industry: String,
    /// Jurisdiction ("Malaysia").
    pub location: String,
}

/// A list of names stored as a JSON array.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NameList(pub Vec<String>);

impl TryFrom<String> for NameList {
    type Error = serde_json::Error;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        serde_json::from_str(&s).map(Self)
    }
}

/// A named, coloured group of documents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromRow)]
pub struct DocSet {
    /// Stable id (UUID).
    pub id: String,
    /// Name, unique per profile (case-insensitive).
    pub name: String,
    /// One of [`PALETTE`].
    pub colour: String,
    /// Number of documents in the set.
    pub document_count: i64,
}

/// A document of the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// Stable id (UUID).
    pub id: String,
    /// Owning profile.
    pub profile_id: String,
    /// Title shown to the user.
    pub title: String,
    /// Version label ("2024"), possibly empty.
    pub version: String,
    /// Regulatory or policy.
    pub doc_type: DocType,
    /// Set id, if any.
    pub set_id: Option<String>,
    /// Set name, if any.
    pub set_name: Option<String>,
    /// Original file name.
    pub file_name: String,
    /// sha256 of the file, hex.
    pub sha256: String,
    /// Number of physical pages.
    pub page_count: i64,
    /// Number of indexed chunks.
    pub chunk_count: i64,
    /// Pages (1-based) without a text layer.
    pub empty_pages: Vec<u32>,
    /// Lifecycle state.
    pub status: DocStatus,
    /// Why ingestion failed.
    pub error: Option<String>,
    /// The document this one replaces.
    pub supersedes: Option<String>,
    /// The ready document that replaces this one, if any.
    pub superseded_by: Option<String>,
    /// Embedding model that indexed it.
    pub embed_model: String,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

impl Document {
    /// "Title (Version)" as the UI shows it.
    pub fn label(&self) -> String {
        if self.version.is_empty() {
            self.title.clone()
        } else {
            format!("{} ({})", self.title, self.version)
        }
    }
}

#[derive(FromRow)]
struct DocumentRow {
    id: String,
    profile_id: String,
    title: String,
    version: String,
    doc_type: String,
    set_id: Option<String>,
    set_name: Option<String>,
    file_name: String,
    sha256: String,
    page_count: i64,
    chunk_count: i64,
    empty_pages: String,
    status: String,
    error: Option<String>,
    supersedes: Option<String>,
    superseded_by: Option<String>,
    embed_model: String,
    created_at: String,
    updated_at: String,
}

impl TryFrom<DocumentRow> for Document {
    type Error = StoreError;
    fn try_from(r: DocumentRow) -> Result<Self, StoreError> {
        Ok(Document {
            doc_type: r.doc_type.parse()?,
            status: r.status.parse()?,
            empty_pages: serde_json::from_str(&r.empty_pages)
                .map_err(|e| StoreError::Corrupt(format!("empty_pages: {e}")))?,
            id: r.id,
            profile_id: r.profile_id,
            title: r.title,
            version: r.version,
            set_id: r.set_id,
            set_name: r.set_name,
            file_name: r.file_name,
            sha256: r.sha256,
            page_count: r.page_count,
            chunk_count: r.chunk_count,
            error: r.error,
            supersedes: r.supersedes,
            superseded_by: r.superseded_by,
            embed_model: r.embed_model,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

const DOCUMENT_SELECT: &str = "SELECT d.id, d.profile_id, d.title, d.version, d.doc_type, d.set_id, \
     s.name AS set_name, d.file_name, d.sha256, d.page_count, d.chunk_count, d.empty_pages, \
     d.status, d.error, d.supersedes, \
     (SELECT n.id FROM documents n WHERE n.supersedes = d.id AND n.profile_id = d.profile_id \
        AND n.status IN ('ready', 'disabled') ORDER BY n.created_at DESC LIMIT 1) AS superseded_by, \
     d.embed_model, d.created_at, d.updated_at \
     FROM documents d LEFT JOIN sets s ON s.id = d.set_id AND s.profile_id = d.profile_id";

/// What a new document row needs.
#[derive(Debug, Clone)]
pub struct NewDocument<'a> {
    /// Owning profile.
    pub profile_id: &'a str,
    /// Title.
    pub title: &'a str,
    /// Version label.
    pub version: &'a str,
    /// Kind.
    pub doc_type: DocType,
    /// Set id.
    pub set_id: Option<&'a str>,
    /// Original file name.
    pub file_name: &'a str,
    /// sha256 hex.
    pub sha256: &'a str,
    /// The document this one replaces.
    pub supersedes: Option<&'a str>,
    /// Embedding model id.
    pub embed_model: &'a str,
    /// How long the ingestion lease lasts before recovery may claim the row.
    pub lease: Duration,
}

/// Current time as RFC 3339 UTC text with milliseconds (sorts lexicographically).
pub fn now() -> String {
    timestamp(time::OffsetDateTime::now_utc())
}

fn timestamp(t: time::OffsetDateTime) -> String {
    let f = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    t.format(&f).unwrap_or_default()
}

fn in_future(d: Duration) -> String {
    timestamp(time::OffsetDateTime::now_utc() + d)
}

/// Checks a user-supplied profile or set name. Any printable Unicode is allowed (quotes,
/// slashes, emoji): names only ever reach SQL as bound parameters.
pub fn validate_name(what: &'static str, name: &str) -> Result<String, StoreError> {
    let trimmed = name.trim();
    let err = |reason| StoreError::InvalidName {
        what,
        name: name.to_owned(),
        reason,
    };
    if trimmed.is_empty() {
        return Err(err("it is empty"));
    }
    if trimmed.chars().count() > 64 {
        return Err(err("it is longer than 64 characters"));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(err("it contains control characters"));
    }
    Ok(trimmed.to_owned())
}

/// Creates the database file if missing, and makes it (and its WAL and shared-memory files, if
/// any) readable by the owner only.
fn private_file(path: &Path) -> Result<(), StoreError> {
    let io = |source| StoreError::Io {
        path: path.to_owned(),
        source,
    };
    let mut open = std::fs::OpenOptions::new();
    open.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    open.open(path).map_err(io)?;
    let mut files = vec![path.to_owned()];
    for suffix in ["-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        files.push(p.into());
    }
    for f in files.iter().filter(|f| f.exists()) {
        crate::config::owner_only(f, 0o600).map_err(|source| StoreError::Io {
            path: f.clone(),
            source,
        })?;
    }
    Ok(())
}

/// A valid profile name. Profiles are found by id or by name: a name shaped like an id could
/// shadow another profile (or be shadowed by one created later), so it is refused.
fn profile_name(name: &str) -> Result<String, StoreError> {
    let name = validate_name("profile", name)?;
    if uuid::Uuid::parse_str(&name).is_ok() {
        return Err(StoreError::InvalidName {
            what: "profile",
            name,
            reason: "it has the form of a profile id",
        });
    }
    Ok(name)
}

/// One page as stored.
#[derive(Debug, Clone, Copy)]
pub struct PageRow<'a> {
    /// 1-based physical page.
    pub page: u32,
    /// Where the page starts in the document text.
    pub char_start: usize,
    /// Cleaned text.
    pub text: &'a str,
    /// Stored spelling of the extractor.
    pub extractor: &'a str,
    /// What OCR read, for a scanned page.
    pub ocr: Option<&'a crate::ingest::OcrLayer>,
}

/// Handle to the SQLite database. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) the database file and applies pending migrations. The file is
    /// readable by its owner only (0600 on Unix; SQLite gives its WAL and shared-memory files
    /// the database file's permissions).
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        private_file(path)?;
        let opts = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(30));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(Self { pool })
    }

    /// Closes the pool, flushing the WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    // ------------------------------------------------------------------ meta

    /// Reads a data-directory-wide fact.
    pub async fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT value FROM meta WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Writes several data-directory-wide facts in one transaction (all or none).
    pub async fn set_metas(&self, facts: &[(&str, &str)]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        for (key, value) in facts {
            sqlx::query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
                .bind(key)
                .bind(value)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Writes a data-directory-wide fact.
    pub async fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .bind(key)
            .bind(value)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    // ------------------------------------------------------------------ profiles

    /// Creates a profile.
    pub async fn create_profile(
        &self,
        name: &str,
        context: &UserContext,
    ) -> Result<Profile, StoreError> {
        let name = profile_name(name)?;
        let id = uuid::Uuid::now_v7().to_string();
        let res = sqlx::query(
            "INSERT INTO profiles(id, name, organisation, industry, location, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(&name)
        .bind(context.organisation.trim())
        .bind(context.industry.trim())
        .bind(context.location.trim())
        .bind(now())
        .execute(&self.pool)
        .await;
        match res {
            Ok(_) => self.profile(&id).await,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(StoreError::ProfileExists(name))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A profile by id or name; an id wins over a name (names cannot take the form of an id,
    /// but a database from an older version may hold one).
    pub async fn profile(&self, id_or_name: &str) -> Result<Profile, StoreError> {
        sqlx::query_as::<_, Profile>(
            "SELECT id, name, organisation, industry, location, created_at, redact_pii, redact_names, reviewer FROM profiles \
             WHERE id = ?1 OR name = ?2 ORDER BY id = ?1 DESC LIMIT 1",
        )
        .bind(id_or_name)
        .bind(id_or_name.trim())
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::ProfileNotFound(id_or_name.to_owned()))
    }

    /// All profiles by name.
    pub async fn profiles(&self) -> Result<Vec<Profile>, StoreError> {
        Ok(sqlx::query_as::<_, Profile>(
            "SELECT id, name, organisation, industry, location, created_at, redact_pii, redact_names, reviewer FROM profiles ORDER BY name",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Renames a profile and sets its user context in one write (the desktop's first run).
    pub async fn set_up_profile(
        &self,
        profile_id: &str,
        name: &str,
        context: &UserContext,
    ) -> Result<Profile, StoreError> {
        let name = profile_name(name)?;
        let res = sqlx::query(
            "UPDATE profiles SET name = ?, organisation = ?, industry = ?, location = ? WHERE id = ?",
        )
        .bind(&name)
        .bind(context.organisation.trim())
        .bind(context.industry.trim())
        .bind(context.location.trim())
        .bind(profile_id)
        .execute(&self.pool)
        .await;
        match res {
            Ok(r) if r.rows_affected() == 0 => {
                Err(StoreError::ProfileNotFound(profile_id.to_owned()))
            }
            Ok(_) => self.profile(profile_id).await,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(StoreError::ProfileExists(name))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Changes a profile's user context (organisation, industry, location).
    pub async fn update_profile(
        &self,
        profile_id: &str,
        context: &UserContext,
    ) -> Result<Profile, StoreError> {
        let n = sqlx::query(
            "UPDATE profiles SET organisation = ?, industry = ?, location = ? WHERE id = ?",
        )
        .bind(context.organisation.trim())
        .bind(context.industry.trim())
        .bind(context.location.trim())
        .bind(profile_id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if n == 0 {
            return Err(StoreError::ProfileNotFound(profile_id.to_owned()));
        }
        self.profile(profile_id).await
    }

    /// Switches PII redaction for a profile and sets the names to redact (trimmed, empty ones
    /// dropped, duplicates removed).
    pub async fn set_privacy(
        &self,
        profile_id: &str,
        redact_pii: bool,
        names: &[String],
    ) -> Result<Profile, StoreError> {
        let mut list: Vec<String> = Vec::new();
        for n in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
            if !list.iter().any(|x| x.eq_ignore_ascii_case(n)) {
                list.push(n.to_owned());
            }
        }
        let names = serde_json::to_string(&list).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let n = sqlx::query("UPDATE profiles SET redact_pii = ?, redact_names = ? WHERE id = ?")
            .bind(redact_pii)
            .bind(names)
            .bind(profile_id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::ProfileNotFound(profile_id.to_owned()));
        }
        self.profile(profile_id).await
    }

    // ------------------------------------------------------------------ sets

    /// All sets of a profile with their document counts.
    pub async fn sets(&self, profile_id: &str) -> Result<Vec<DocSet>, StoreError> {
        Ok(sqlx::query_as::<_, DocSet>(
            "SELECT s.id, s.name, s.colour, \
             (SELECT COUNT(*) FROM documents d WHERE d.set_id = s.id AND d.profile_id = s.profile_id) AS document_count \
             FROM sets s WHERE s.profile_id = ? ORDER BY s.name",
        )
        .bind(profile_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// A set by name (case-insensitive) in a profile.
    pub async fn set_by_name(&self, profile_id: &str, name: &str) -> Result<DocSet, StoreError> {
        let name = validate_name("set", name)?;
        sqlx::query_as::<_, DocSet>(
            "SELECT s.id, s.name, s.colour, \
             (SELECT COUNT(*) FROM documents d WHERE d.set_id = s.id AND d.profile_id = s.profile_id) AS document_count \
             FROM sets s WHERE s.profile_id = ? AND s.name = ?",
        )
        .bind(profile_id)
        .bind(&name)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::SetNotFound(name))
    }

    /// Creates a set; without a colour the next palette colour is taken.
    pub async fn create_set(
        &self,
        profile_id: &str,
        name: &str,
        colour: Option<&str>,
    ) -> Result<DocSet, StoreError> {
        let name = validate_name("set", name)?;
        let colour = match colour {
            Some(c) => checked_colour(c)?,
            None => {
                let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sets WHERE profile_id = ?")
                    .bind(profile_id)
                    .fetch_one(&self.pool)
                    .await?;
                PALETTE[usize::try_from(n).unwrap_or(0) % PALETTE.len()].to_owned()
            }
        };
        let res = sqlx::query(
            "INSERT INTO sets(id, profile_id, name, colour, created_at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(profile_id)
        .bind(&name)
        .bind(&colour)
        .bind(now())
        .execute(&self.pool)
        .await;
        match res {
            Ok(_) => self.set_by_name(profile_id, &name).await,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(StoreError::SetExists(name))
            }
            Err(sqlx::Error::Database(e)) if e.is_foreign_key_violation() => {
                Err(StoreError::ProfileNotFound(profile_id.to_owned()))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The set with this name, created if it does not exist yet.
    pub async fn ensure_set(&self, profile_id: &str, name: &str) -> Result<DocSet, StoreError> {
        match self.set_by_name(profile_id, name).await {
            Ok(s) => Ok(s),
            Err(StoreError::SetNotFound(_)) => {
                match self.create_set(profile_id, name, None).await {
                    // Another ingestion created it between our two statements.
                    Err(StoreError::SetExists(_)) => self.set_by_name(profile_id, name).await,
                    other => other,
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Renames a set.
    pub async fn rename_set(
        &self,
        profile_id: &str,
        old: &str,
        new: &str,
    ) -> Result<DocSet, StoreError> {
        let set = self.set_by_name(profile_id, old).await?;
        let new = validate_name("set", new)?;
        let res = sqlx::query("UPDATE sets SET name = ? WHERE id = ? AND profile_id = ?")
            .bind(&new)
            .bind(&set.id)
            .bind(profile_id)
            .execute(&self.pool)
            .await;
        match res {
            Ok(_) => self.set_by_name(profile_id, &new).await,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(StoreError::SetExists(new))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Changes a set's colour.
    pub async fn recolor_set(
        &self,
        profile_id: &str,
        name: &str,
        colour: &str,
    ) -> Result<DocSet, StoreError> {
        let set = self.set_by_name(profile_id, name).await?;
        let colour = checked_colour(colour)?;
        sqlx::query("UPDATE sets SET colour = ? WHERE id = ? AND profile_id = ?")
            .bind(&colour)
            .bind(&set.id)
            .bind(profile_id)
            .execute(&self.pool)
            .await?;
        self.set_by_name(profile_id, &set.name).await
    }

    // ------------------------------------------------------------------ documents

    /// Inserts a document in state `processing` holding an ingestion lease.
    pub async fn insert_document(&self, d: &NewDocument<'_>) -> Result<String, InsertError> {
        let id = uuid::Uuid::now_v7().to_string();
        let ts = now();
        let res = sqlx::query(
            "INSERT INTO documents(id, profile_id, title, version, doc_type, set_id, file_name, sha256, \
             status, supersedes, embed_model, lease_until, created_at, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'processing', ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(d.profile_id)
        .bind(d.title)
        .bind(d.version)
        .bind(d.doc_type.as_str())
        .bind(d.set_id)
        .bind(d.file_name)
        .bind(d.sha256)
        .bind(d.supersedes)
        .bind(d.embed_model)
        .bind(in_future(d.lease))
        .bind(&ts)
        .bind(&ts)
        .execute(&self.pool)
        .await;
        match res {
            Ok(_) => Ok(id),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                let existing: Option<String> = sqlx::query_scalar(
                    "SELECT id FROM documents WHERE profile_id = ? AND sha256 = ?",
                )
                .bind(d.profile_id)
                .bind(d.sha256)
                .fetch_optional(&self.pool)
                .await
                .map_err(StoreError::from)?;
                Err(InsertError::Duplicate(existing.unwrap_or_default()))
            }
            Err(e) => Err(InsertError::Store(e.into())),
        }
    }

    /// Extends the ingestion lease of a `processing` document.
    pub async fn renew_lease(
        &self,
        profile_id: &str,
        id: &str,
        lease: Duration,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE documents SET lease_until = ? WHERE id = ? AND profile_id = ? AND status = 'processing'")
            .bind(in_future(lease))
            .bind(id)
            .bind(profile_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Records the page count and pages without text while ingestion runs.
    pub async fn set_pages(
        &self,
        profile_id: &str,
        id: &str,
        page_count: usize,
        empty_pages: &[u32],
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE documents SET page_count = ?, empty_pages = ?, updated_at = ? WHERE id = ? AND profile_id = ?")
            .bind(i64::try_from(page_count).unwrap_or(i64::MAX))
            .bind(serde_json::to_string(empty_pages).unwrap_or_else(|_| "[]".into()))
            .bind(now())
            .bind(id)
            .bind(profile_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Flips a `processing` document to `ready` once all its chunks are written.
    pub async fn mark_ready(
        &self,
        profile_id: &str,
        id: &str,
        chunk_count: usize,
    ) -> Result<(), StoreError> {
        let n = sqlx::query(
            "UPDATE documents SET status = 'ready', chunk_count = ?, error = NULL, lease_until = NULL, updated_at = ? \
             WHERE id = ? AND profile_id = ? AND status = 'processing'",
        )
        .bind(i64::try_from(chunk_count).unwrap_or(i64::MAX))
        .bind(now())
        .bind(id)
        .bind(profile_id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if n == 0 {
            // Recovered as failed or deleted behind our back: do not resurrect it.
            return Err(StoreError::DocumentNotFound(id.to_owned()));
        }
        // A new or newer document can answer questions differently.
        self.forget_cached_answers(profile_id).await
    }

    /// Marks a document failed with a reason.
    pub async fn mark_failed(
        &self,
        profile_id: &str,
        id: &str,
        error: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE documents SET status = 'failed', error = ?, lease_until = NULL, chunk_count = 0, updated_at = ? \
             WHERE id = ? AND profile_id = ? AND status = 'processing'",
        )
        .bind(error)
        .bind(now())
        .bind(id)
        .bind(profile_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Documents (of every profile) in `processing`, as `(profile_id, document_id, sha256)`:
    /// whether their ingestion is still alive is for [`crate::liveness`] to say.
    pub async fn processing_documents(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        Ok(sqlx::query_as::<_, (String, String, String)>(
            "SELECT profile_id, id, sha256 FROM documents WHERE status = 'processing'",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// One document of a profile.
    pub async fn document(&self, profile_id: &str, id: &str) -> Result<Document, StoreError> {
        let sql = format!("{DOCUMENT_SELECT} WHERE d.profile_id = ? AND d.id = ?");
        let row = sqlx::query_as::<_, DocumentRow>(&sql)
            .bind(profile_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::DocumentNotFound(id.to_owned()))?;
        row.try_into()
    }

    /// All documents of a profile, newest first.
    pub async fn documents(&self, profile_id: &str) -> Result<Vec<Document>, StoreError> {
        let sql = format!("{DOCUMENT_SELECT} WHERE d.profile_id = ? ORDER BY d.created_at DESC");
        sqlx::query_as::<_, DocumentRow>(&sql)
            .bind(profile_id)
            .fetch_all(&self.pool)
            .await?
            .into_iter()
            .map(Document::try_from)
            .collect()
    }

    /// The document of this profile with this file hash, if any.
    pub async fn document_by_hash(
        &self,
        profile_id: &str,
        sha256: &str,
    ) -> Result<Option<Document>, StoreError> {
        let sql = format!("{DOCUMENT_SELECT} WHERE d.profile_id = ? AND d.sha256 = ?");
        sqlx::query_as::<_, DocumentRow>(&sql)
            .bind(profile_id)
            .bind(sha256)
            .fetch_optional(&self.pool)
            .await?
            .map(Document::try_from)
            .transpose()
    }

    /// The newest non-failed document with this title (case-insensitive) in a profile.
    pub async fn latest_with_title(
        &self,
        profile_id: &str,
        title: &str,
    ) -> Result<Option<Document>, StoreError> {
        let sql = format!(
            "{DOCUMENT_SELECT} WHERE d.profile_id = ? AND lower(d.title) = lower(?) \
             AND d.status IN ('ready', 'disabled', 'processing') ORDER BY d.created_at DESC LIMIT 1"
        );
        sqlx::query_as::<_, DocumentRow>(&sql)
            .bind(profile_id)
            .bind(title.trim())
            .fetch_optional(&self.pool)
            .await?
            .map(Document::try_from)
            .transpose()
    }

    /// Switches a document between `ready` and `disabled`.
    pub async fn set_enabled(
        &self,
        profile_id: &str,
        id: &str,
        enabled: bool,
    ) -> Result<Document, StoreError> {
        let (from, to) = if enabled {
            ("disabled", "ready")
        } else {
            ("ready", "disabled")
        };
        let doc = self.document(profile_id, id).await?;
        if doc.status.as_str() == from {
            sqlx::query("UPDATE documents SET status = ?, updated_at = ? WHERE id = ? AND profile_id = ? AND status = ?")
                .bind(to)
                .bind(now())
                .bind(id)
                .bind(profile_id)
                .bind(from)
                .execute(&self.pool)
                .await?;
            self.forget_cached_answers(profile_id).await?;
        }
        self.document(profile_id, id).await
    }

    /// Deletes a document row and, in the same transaction, writes its tombstone: the caller
    /// removes the chunks and the stored PDF, then calls [`Store::finish_delete`].
    pub async fn delete_document(&self, profile_id: &str, id: &str) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query("DELETE FROM documents WHERE id = ? AND profile_id = ?")
            .bind(id)
            .bind(profile_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::DocumentNotFound(id.to_owned()));
        }
        sqlx::query(
            "INSERT OR IGNORE INTO pending_deletes(profile_id, document_id, created_at) VALUES (?, ?, ?)",
        )
        .bind(profile_id)
        .bind(id)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.forget_cached_answers(profile_id).await
    }

    /// Deletes whose rows are gone but whose chunks or file may not be (see
    /// [`Store::delete_document`]), as `(profile_id, document_id)`.
    pub async fn pending_deletes(&self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as::<_, (String, String)>(
            "SELECT profile_id, document_id FROM pending_deletes ORDER BY created_at",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Removes a delete's tombstone once its chunks and file are gone.
    pub async fn finish_delete(&self, profile_id: &str, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM pending_deletes WHERE profile_id = ? AND document_id = ?")
            .bind(profile_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stores the cleaned text of every page of a document, and the word boxes of OCR'd pages
    /// (one transaction).
    pub async fn insert_pages<'a>(
        &self,
        profile_id: &str,
        document_id: &str,
        pages: impl Iterator<Item = PageRow<'a>>,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        for row in pages {
            sqlx::query(
                "INSERT INTO pages(profile_id, document_id, page, char_start, text, extractor, ocr_confidence) VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(profile_id)
            .bind(document_id)
            .bind(i64::from(row.page))
            .bind(i64::try_from(row.char_start).unwrap_or(i64::MAX))
            .bind(row.text)
            .bind(row.extractor)
            .bind(row.ocr.map(|o| f64::from(o.confidence)))
            .execute(&mut *tx)
            .await?;
            for (seq, w) in row
                .ocr
                .map(|o| o.words.as_slice())
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                sqlx::query(
                    "INSERT INTO ocr_words(profile_id, document_id, page, seq, char_start, char_end, x, y, w, h, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                )
                .bind(profile_id)
                .bind(document_id)
                .bind(i64::from(row.page))
                .bind(i64::try_from(seq).unwrap_or(i64::MAX))
                .bind(i64::try_from(w.start).unwrap_or(i64::MAX))
                .bind(i64::try_from(w.end).unwrap_or(i64::MAX))
                .bind(f64::from(w.x))
                .bind(f64::from(w.y))
                .bind(f64::from(w.w))
                .bind(f64::from(w.h))
                .bind(f64::from(w.confidence))
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// The mean OCR confidence (0–100) of one page; `None` for a page with a text layer.
    pub async fn ocr_confidence(
        &self,
        profile_id: &str,
        document_id: &str,
        page: u32,
    ) -> Result<Option<f32>, StoreError> {
        let c: Option<Option<f64>> = sqlx::query_scalar(
            "SELECT ocr_confidence FROM pages WHERE profile_id = ? AND document_id = ? AND page = ?",
        )
        .bind(profile_id)
        .bind(document_id)
        .bind(i64::from(page))
        .fetch_optional(&self.pool)
        .await?;
        Ok(c.flatten().map(|c| c as f32))
    }

    /// The boxes of the OCR'd words of one page that overlap the byte range `start..end` of
    /// its text, in reading order.
    pub async fn ocr_words(
        &self,
        profile_id: &str,
        document_id: &str,
        page: u32,
        range: std::ops::Range<usize>,
    ) -> Result<Vec<crate::ingest::OcrWord>, StoreError> {
        let rows: Vec<(i64, i64, f64, f64, f64, f64, f64)> = sqlx::query_as(
            "SELECT char_start, char_end, x, y, w, h, confidence FROM ocr_words \
             WHERE profile_id = ? AND document_id = ? AND page = ? AND char_end > ? AND char_start < ? ORDER BY seq",
        )
        .bind(profile_id)
        .bind(document_id)
        .bind(i64::from(page))
        .bind(i64::try_from(range.start).unwrap_or(i64::MAX))
        .bind(i64::try_from(range.end).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(s, e, x, y, w, h, c)| {
                let offset = |v: i64| {
                    usize::try_from(v).map_err(|_| {
                        StoreError::Corrupt(format!(
                            "OCR word offset {v} on page {page} of {document_id}"
                        ))
                    })
                };
                Ok(crate::ingest::OcrWord {
                    start: offset(s)?,
                    end: offset(e)?,
                    x: x as f32,
                    y: y as f32,
                    w: w as f32,
                    h: h as f32,
                    confidence: c as f32,
                })
            })
            .collect()
    }

    /// `(page, char_start)` of every page of a document, in page order.
    pub async fn page_starts(
        &self,
        profile_id: &str,
        document_id: &str,
    ) -> Result<Vec<(u32, usize)>, StoreError> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT page, char_start FROM pages WHERE profile_id = ? AND document_id = ? ORDER BY page",
        )
        .bind(profile_id)
        .bind(document_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(p, s)| {
                (
                    u32::try_from(p).unwrap_or(0),
                    usize::try_from(s).unwrap_or(0),
                )
            })
            .collect())
    }

    /// Whether any page of the documents writes `needle` (lower case, found case-insensitively
    /// in a page's text) as `written` reads that page's text: the store finds the pages that
    /// hold the letters, the caller says whether they hold the word ("activ" is in
    /// "inactivity", which does not write "active"). Stops at the first such page.
    pub async fn pages_write(
        &self,
        profile_id: &str,
        document_ids: &[String],
        needle: &str,
        written: impl Fn(&str) -> bool,
    ) -> Result<bool, StoreError> {
        use futures::TryStreamExt;
        if document_ids.is_empty() {
            return Ok(false);
        }
        let mut q =
            sqlx::QueryBuilder::<sqlx::Sqlite>::new("SELECT text FROM pages WHERE profile_id = ");
        q.push_bind(profile_id).push(" AND document_id IN (");
        let mut ids = q.separated(", ");
        for id in document_ids {
            ids.push_bind(id);
        }
        q.push(") AND instr(lower(text), ")
            .push_bind(needle)
            .push(") > 0");
        let mut pages = q.build_query_scalar::<String>().fetch(&self.pool);
        while let Some(text) = pages.try_next().await? {
            if written(&text) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `(page, text)` of every page of a document, in page order.
    pub async fn page_texts(
        &self,
        profile_id: &str,
        document_id: &str,
    ) -> Result<Vec<(u32, String)>, StoreError> {
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT page, text FROM pages WHERE profile_id = ? AND document_id = ? ORDER BY page",
        )
        .bind(profile_id)
        .bind(document_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(p, t)| (u32::try_from(p).unwrap_or(0), t))
            .collect())
    }

    /// The text of one page of a document.
    pub async fn page_text(
        &self,
        profile_id: &str,
        document_id: &str,
        page: u32,
    ) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT text FROM pages WHERE profile_id = ? AND document_id = ? AND page = ?",
        )
        .bind(profile_id)
        .bind(document_id)
        .bind(i64::from(page))
        .fetch_optional(&self.pool)
        .await?)
    }

    /// How many pages each extractor produced for a document.
    pub async fn extractor_counts(
        &self,
        profile_id: &str,
        document_id: &str,
    ) -> Result<std::collections::HashMap<String, usize>, StoreError> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT extractor, COUNT(*) FROM pages WHERE profile_id = ? AND document_id = ? GROUP BY extractor",
        )
        .bind(profile_id)
        .bind(document_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(e, n)| (e, usize::try_from(n).unwrap_or(0)))
            .collect())
    }

    /// The profile's document ids split in two: those searched by default (ready and not
    /// superseded by a ready or disabled version), and all the others.
    pub async fn ids_by_searchability(
        &self,
        profile_id: &str,
    ) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let rows: Vec<(String, bool)> = sqlx::query_as(
            "SELECT d.id, d.status = 'ready' \
               AND NOT EXISTS (SELECT 1 FROM documents n WHERE n.supersedes = d.id \
                 AND n.profile_id = d.profile_id AND n.status IN ('ready', 'disabled')) \
             FROM documents d WHERE d.profile_id = ?",
        )
        .bind(profile_id)
        .fetch_all(&self.pool)
        .await?;
        let (yes, no): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(_, s)| *s);
        Ok((
            yes.into_iter().map(|(id, _)| id).collect(),
            no.into_iter().map(|(id, _)| id).collect(),
        ))
    }
}

/// Why a document row could not be inserted.
#[derive(Debug, thiserror::Error)]
pub enum InsertError {
    /// The same file (sha256) exists in this profile; carries its id.
    #[error("this file is already in the library as document {0}")]
    Duplicate(String),
    /// Any other store error.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn checked_colour(c: &str) -> Result<String, StoreError> {
    let c = c.trim().to_ascii_lowercase();
    if PALETTE.contains(&c.as_str()) {
        Ok(c)
    } else {
        Err(StoreError::InvalidColour(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_odd_characters_are_kept_and_control_characters_refused() {
        assert_eq!(
            validate_name("set", "  Bank Negara 'BNM' / ✓ ; DROP  ")
                .ok()
                .as_deref(),
            Some("Bank Negara 'BNM' / ✓ ; DROP")
        );
        assert!(matches!(
            validate_name("set", "   "),
            Err(StoreError::InvalidName { .. })
        ));
        assert!(matches!(
            validate_name("set", "a\u{7}b"),
            Err(StoreError::InvalidName { .. })
        ));
        assert!(validate_name("set", &"x".repeat(65)).is_err());
    }

    #[test]
    fn timestamps_sort_as_text() {
        let a = now();
        let b = in_future(Duration::from_secs(1));
        assert!(a < b, "{a} < {b}");
        assert!(a.ends_with('Z'));
    }
}
