//! Settings and on-disk layout of a data directory.
//!
//! Owns: where the data directory is (shared by the CLI and the desktop app), the paths inside
//! it, and the user-tunable settings (`settings.json`, every field with a serde default so an old
//! or partial file still loads). Must not: open databases, touch the network or read secrets.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Environment variable that overrides the data directory (the CLI's `--data-dir` wins over it).
pub const DATA_DIR_ENV: &str = "POLICYPAL_DATA_DIR";
/// Environment variable that points at the local embedding model directory.
pub const MODEL_DIR_ENV: &str = "POLICYPAL_MODEL_DIR";
/// Name of the model directory inside `<data dir>/models/`.
pub const MINILM_DIR_NAME: &str = "all-MiniLM-L6-v2";

/// Errors of reading or writing configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// No per-user data directory could be determined and none was given.
    #[error("no data directory: pass --data-dir or set {DATA_DIR_ENV}")]
    NoDataDir,
    /// The data directory or a file in it could not be created or read.
    #[error("data directory {path}: {source}")]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A key was to be stored, but nothing in the settings would send it anywhere.
    #[error(
        "nothing in settings.json would use the {0} (no endpoint for it is configured); configure it first, or give the endpoint explicitly"
    )]
    NoKeyEndpoint(String),
    /// `settings.json` exists but is not valid.
    #[error("settings file {path} is invalid: {source}")]
    Invalid {
        /// The settings file.
        path: PathBuf,
        /// What serde said.
        source: serde_json::Error,
    },
}

/// Which embedding backend builds and queries the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EmbedderSettings {
    /// all-MiniLM-L6-v2 run locally with candle (offline, the default).
    Local {
        /// Model directory; `None` means `$POLICYPAL_MODEL_DIR`, else `<data dir>/models/all-MiniLM-L6-v2`,
        /// else the one an installed package put beside the program (see [`DataDir::model_dir`]).
        #[serde(default)]
        model_dir: Option<PathBuf>,
    },
    /// Any OpenAI-compatible `/v1/embeddings` endpoint.
    OpenAi {
        /// Base URL such as `http://127.0.0.1:11434/v1`.
        base_url: String,
        /// Model name sent with each request.
        model: String,
        /// Vector dimension the model returns.
        dimension: usize,
    },
}

impl Default for EmbedderSettings {
    fn default() -> Self {
        Self::Local { model_dir: None }
    }
}

/// Chunking parameters (characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChunkSettings {
    /// Target upper size of a chunk in characters.
    pub max_chars: usize,
    /// Overlap between consecutive chunks in characters.
    pub overlap: usize,
}

impl Default for ChunkSettings {
    fn default() -> Self {
        Self {
            max_chars: 1000,
            overlap: 150,
        }
    }
}

/// Limits that protect the workstation from hostile or accidental input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Largest PDF accepted, in bytes.
    pub max_file_bytes: u64,
    /// Most pages accepted in one PDF.
    pub max_pages: usize,
    /// Seconds text extraction of one PDF may take before it is abandoned.
    pub extract_timeout_secs: u64,
    /// Seconds an ingestion may go without progress before another start of PolicyPal
    /// considers it crashed and marks the document failed.
    pub ingest_lease_secs: u64,
    /// Address space the text-extraction process may use, in MiB (it is stopped beyond).
    pub extract_memory_mb: u64,
    /// Most characters of text one PDF may yield (a text bomb is refused beyond).
    pub max_text_chars: usize,
    /// Read text with poppler's `pdftotext` first (the default); `false` keeps to the built-in
    /// extractors (pdf-extract, lopdf).
    pub poppler: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 200 * 1024 * 1024,
            max_pages: 1500,
            extract_timeout_secs: 300,
            ingest_lease_secs: 120,
            extract_memory_mb: 2048,
            max_text_chars: 20_000_000,
            poppler: true,
        }
    }
}

/// Thresholds of the confidence check (calibrated on the development set).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ConfidenceSettings {
    /// Score at or above which an answer is high confidence.
    pub high: f32,
    /// Score at or above which an answer is medium confidence; below it the agent refuses.
    pub medium: f32,
}

impl Default for ConfidenceSettings {
    fn default() -> Self {
        Self {
            high: 0.62,
            medium: 0.42,
        }
    }
}

/// The semantic answer cache (spec 000).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct CacheSettings {
    /// Serve a stored answer to a question that means the same.
    pub enabled: bool,
    /// Cosine similarity of the two questions' embeddings at or above which they mean the same
    /// (their numbers, codes and negations must also be equal).
    pub min_similarity: f32,
}

impl Default for CacheSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            min_similarity: 0.9,
        }
    }
}

/// User settings stored in `<data dir>/settings.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Embedding backend.
    pub embedder: EmbedderSettings,
    /// Chunking parameters.
    pub chunking: ChunkSettings,
    /// Input limits.
    pub limits: Limits,
    /// Chat model for generative answers (`None`: extractive answers only).
    pub llm: Option<crate::llm::LlmSettings>,
    /// Confidence thresholds of the agent.
    pub confidence: ConfidenceSettings,
    /// Web search (off by default).
    pub web: crate::web::WebSettings,
    /// The semantic answer cache.
    pub cache: CacheSettings,
    /// Search tuning.
    pub search: SearchSettings,
    /// OCR of scanned pages.
    pub ocr: OcrSettings,
    /// The program that extracts text in its own process (`None`: this program; set only by
    /// test harnesses whose own binary cannot serve as the worker).
    pub extract_worker: Option<PathBuf>,
}

impl Settings {
    /// The endpoint the key `name` goes to under these settings, which a key is bound to when
    /// stored: the chat model's base URL (OpenAI's when no model is configured yet), the
    /// OpenAI-compatible embeddings endpoint, the web search endpoint. An error when nothing
    /// would use the key (the local embedding model needs none).
    pub fn key_endpoint(&self, name: &str) -> Result<String, ConfigError> {
        let endpoint = match name {
            crate::secrets::LLM_KEY => Some(self.llm.clone().unwrap_or_default().base_url),
            crate::secrets::EMBEDDINGS_KEY => match &self.embedder {
                EmbedderSettings::OpenAi { base_url, .. } => Some(base_url.clone()),
                EmbedderSettings::Local { .. } => None,
            },
            crate::secrets::WEB_SEARCH_KEY => Some(self.web.base_url.clone()),
            _ => None,
        };
        endpoint.ok_or_else(|| ConfigError::NoKeyEndpoint(name.to_owned()))
    }
}

/// OCR of scanned pages (`"ocr"` in settings.json).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OcrSettings {
    /// Pages without a text layer are read with Tesseract (when it is installed).
    pub enabled: bool,
    /// Tesseract's language code(s), `+`-joined for several (`eng`, `deu+eng`).
    pub language: String,
}

impl Default for OcrSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            language: "eng".to_owned(),
        }
    }
}

/// Search tuning (`"search"` in settings.json).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchSettings {
    /// Chunks from which the vector column gets an approximate (IVF-PQ) index.
    pub ann_min_rows: usize,
    /// IVF partitions probed per approximate query.
    pub ann_nprobes: usize,
    /// Approximate candidates re-ranked exactly, as a multiple of the results wanted.
    pub ann_refine_factor: u32,
}

impl Default for SearchSettings {
    fn default() -> Self {
        let ann = crate::index::AnnParams::default();
        Self {
            ann_min_rows: crate::index::DEFAULT_ANN_MIN_ROWS,
            ann_nprobes: ann.nprobes,
            ann_refine_factor: ann.refine_factor,
        }
    }
}

impl SearchSettings {
    /// The approximate-search parameters.
    pub fn ann(&self) -> crate::index::AnnParams {
        crate::index::AnnParams {
            nprobes: self.ann_nprobes,
            refine_factor: self.ann_refine_factor,
        }
    }
}

/// The paths of one data directory.
#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    /// Resolves the data directory: an explicit path, else `$POLICYPAL_DATA_DIR`, else the
    /// platform's per-user data directory (`~/.local/share/policypal` on Linux), which the
    /// desktop app uses too.
    pub fn resolve(explicit: Option<&Path>) -> Result<Self, ConfigError> {
        if let Some(p) = explicit {
            return Ok(Self::at(p));
        }
        if let Some(p) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
            return Ok(Self::at(PathBuf::from(p)));
        }
        directories::ProjectDirs::from("app", "PolicyPal", "policypal")
            .map(|d| Self::at(d.data_dir()))
            .ok_or(ConfigError::NoDataDir)
    }

    /// A data directory at exactly this path.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// Creates the directory tree if needed. The root is readable by its owner only (0700 on
    /// Unix, also when it existed with wider permissions): it holds every profile's documents,
    /// conversations and index.
    pub fn ensure(&self) -> Result<(), ConfigError> {
        for dir in [self.root.clone(), self.files_dir(), self.logs_dir()] {
            std::fs::create_dir_all(&dir)
                .map_err(|source| ConfigError::Io { path: dir, source })?;
        }
        owner_only(&self.root, 0o700).map_err(|source| ConfigError::Io {
            path: self.root.clone(),
            source,
        })
    }

    /// The root of the data directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The SQLite database file.
    pub fn database(&self) -> PathBuf {
        self.root.join("policypal.sqlite3")
    }
    /// The LanceDB directory.
    pub fn lancedb(&self) -> PathBuf {
        self.root.join("lancedb")
    }
    /// Where original PDFs are kept (one sub-folder per profile).
    pub fn files_dir(&self) -> PathBuf {
        self.root.join("files")
    }
    /// The stored copy of a document's original PDF.
    pub fn document_file(&self, profile_id: &str, document_id: &str) -> PathBuf {
        self.files_dir()
            .join(profile_id)
            .join(format!("{document_id}.pdf"))
    }
    /// Rolling log files.
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }
    /// The settings file.
    pub fn settings_file(&self) -> PathBuf {
        self.root.join("settings.json")
    }
    /// Default place of the local embedding model.
    pub fn default_model_dir(&self) -> PathBuf {
        self.root.join("models").join(MINILM_DIR_NAME)
    }

    /// Loads `settings.json`, or the defaults when it does not exist.
    pub fn load_settings(&self) -> Result<Settings, ConfigError> {
        let path = self.settings_file();
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|source| ConfigError::Invalid { path, source }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(source) => Err(ConfigError::Io { path, source }),
        }
    }

    /// Changes the settings under an exclusive lock (`settings.lock`, held across processes):
    /// loads them, lets `change` edit them, and saves them when it succeeds. Two processes (the
    /// app and the CLI) changing different settings at once both keep their change; a plain
    /// load-then-save would let the later save drop the earlier one. `change` failing saves
    /// nothing.
    pub fn update_settings<T, E: From<ConfigError>>(
        &self,
        change: impl FnOnce(&mut Settings) -> Result<T, E>,
    ) -> Result<T, E> {
        let path = self.root.join("settings.lock");
        let io = |source| ConfigError::Io {
            path: path.clone(),
            source,
        };
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        // Released when `lock` is closed, also on an error below or a crash.
        lock.lock().map_err(io)?;
        let mut settings = self.load_settings()?;
        let out = change(&mut settings)?;
        self.save_settings(&settings)?;
        Ok(out)
    }

    /// Writes `settings.json` atomically: a temporary file of this process and call, flushed to
    /// disk, then renamed over the old one (and the folder flushed), so a reader — or a crash,
    /// or another process saving at the same moment — sees the old settings or the new ones,
    /// never a mix. Two saves at once: the last rename wins, whole.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), ConfigError> {
        use std::io::Write;
        use std::sync::atomic::{AtomicU64, Ordering};
        static SAVES: AtomicU64 = AtomicU64::new(0);
        let path = self.settings_file();
        let tmp = path.with_extension(format!(
            "json.{}.{}.tmp",
            std::process::id(),
            SAVES.fetch_add(1, Ordering::Relaxed)
        ));
        let body = serde_json::to_vec_pretty(settings).map_err(|source| ConfigError::Invalid {
            path: path.clone(),
            source,
        })?;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ConfigError::Io { path, source }
        };
        let written = std::fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(&body).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            // Best effort: the temporary file is ours alone; the error is what matters.
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&path)(e));
        }
        // The rename itself reaches the disk with the folder.
        if let Some(parent) = path.parent() {
            std::fs::File::open(parent)
                .and_then(|d| d.sync_all())
                .map_err(io(parent))?;
        }
        Ok(())
    }

    /// The local model directory the settings select: the settings' own folder, else
    /// `$POLICYPAL_MODEL_DIR`, else a copy in the data directory, else the model an installed
    /// package put beside the program ([`installed_model_dir`]), else the data directory's
    /// place for it (which then names the missing files in the error).
    pub fn model_dir(&self, settings: &Settings) -> PathBuf {
        let program = std::env::current_exe().ok();
        self.model_dir_for(
            settings,
            std::env::var_os(MODEL_DIR_ENV),
            program.as_deref(),
        )
    }

    fn model_dir_for(
        &self,
        settings: &Settings,
        env: Option<std::ffi::OsString>,
        program: Option<&Path>,
    ) -> PathBuf {
        if let EmbedderSettings::Local {
            model_dir: Some(dir),
        } = &settings.embedder
        {
            return dir.clone();
        }
        if let Some(p) = env.filter(|v| !v.is_empty()) {
            return PathBuf::from(p);
        }
        let own = self.default_model_dir();
        if own.join(MODEL_WEIGHTS_FILE).is_file() {
            return own;
        }
        program
            .and_then(installed_model_dir)
            .filter(|dir| dir.join(MODEL_WEIGHTS_FILE).is_file())
            .unwrap_or(own)
    }
}

/// The weights file whose presence says a model folder holds a model.
const MODEL_WEIGHTS_FILE: &str = "model.safetensors";

/// Where the installed packages put the embedding model, relative to the installed program:
/// `/usr/bin/policypal` finds `/usr/share/policypal/models/all-MiniLM-L6-v2` (the FHS layout
/// of `bin` and `share` under one prefix, so `/usr/local` or `/opt/policypal` work the same).
/// Symbolic links to the program are followed to where it is installed.
pub fn installed_model_dir(program: &Path) -> Option<PathBuf> {
    let program = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let prefix = program.parent()?.parent()?;
    Some(
        prefix
            .join("share")
            .join("policypal")
            .join("models")
            .join(MINILM_DIR_NAME),
    )
}

/// Gives `path` the Unix permission bits `mode` (0700 for a directory, 0600 for a file) so that
/// no other user of the workstation can read it; nothing to do on other systems, where the
/// per-user data directory is private already.
pub fn owner_only(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_an_installed_package_put_beside_the_program_is_found_without_set_up() {
        let tmp = tempfile::tempdir().unwrap();
        let prefix = tmp.path().join("usr");
        let program = prefix.join("bin").join("policypal");
        std::fs::create_dir_all(program.parent().unwrap()).unwrap();
        std::fs::write(&program, b"").unwrap();
        let installed = prefix.join("share/policypal/models").join(MINILM_DIR_NAME);
        let dir = DataDir::at(tmp.path().join("data"));
        let settings = Settings::default();
        // No model anywhere: the data directory's place is named (the error lists its files).
        assert_eq!(
            dir.model_dir_for(&settings, None, Some(&program)),
            dir.default_model_dir()
        );
        std::fs::create_dir_all(&installed).unwrap();
        std::fs::write(installed.join(MODEL_WEIGHTS_FILE), b"w").unwrap();
        assert_eq!(
            dir.model_dir_for(&settings, None, Some(&program)),
            installed
        );
        // A link to the program (as a launcher might make) finds the same model.
        #[cfg(unix)]
        {
            let link = tmp.path().join("elsewhere").join("policypal");
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&program, &link).unwrap();
            let found = dir.model_dir_for(&settings, None, Some(&link));
            assert_eq!(
                std::fs::canonicalize(found).unwrap(),
                std::fs::canonicalize(&installed).unwrap()
            );
        }
        // The environment variable and a copy in the data directory both win over it.
        assert_eq!(
            dir.model_dir_for(&settings, Some("/models/x".into()), Some(&program)),
            PathBuf::from("/models/x")
        );
        std::fs::create_dir_all(dir.default_model_dir()).unwrap();
        std::fs::write(dir.default_model_dir().join(MODEL_WEIGHTS_FILE), b"w").unwrap();
        assert_eq!(
            dir.model_dir_for(&settings, None, Some(&program)),
            dir.default_model_dir()
        );
    }

    #[test]
    fn partial_settings_file_keeps_defaults_for_missing_fields() {
        let s: Settings =
            serde_json::from_str(r#"{"limits":{"max_pages":10}}"#).unwrap_or_default();
        assert_eq!(s.limits.max_pages, 10);
        assert_eq!(s.limits.max_file_bytes, Limits::default().max_file_bytes);
        assert_eq!(s.chunking, ChunkSettings::default());
        assert_eq!(s.embedder, EmbedderSettings::Local { model_dir: None });
    }

    #[test]
    fn settings_saved_at_the_same_moment_are_each_whole_and_leave_no_temporary_files() {
        // Regression: every save went through one "settings.json.tmp", so two saves at once
        // could rename a file the other was still writing (a torn settings.json) or fail.
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path());
        dir.ensure().unwrap();
        std::thread::scope(|scope| {
            for t in 0..8 {
                let dir = &dir;
                scope.spawn(move || {
                    for i in 0..40 {
                        let mut s = Settings::default();
                        s.chunking.max_chars = 500 + t * 100 + i;
                        dir.save_settings(&s).unwrap();
                        // Whatever another thread did meanwhile, the file is one whole save.
                        let read = dir.load_settings().unwrap();
                        assert!((500..1300).contains(&read.chunking.max_chars));
                    }
                });
            }
        });
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn changes_made_at_the_same_moment_are_all_kept() {
        // Regression: a change was a load then a save; the app and the CLI changing settings
        // at once lost one of the two changes (the later save wrote the settings it had read).
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path());
        dir.ensure().unwrap();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                let dir = &dir;
                scope.spawn(move || {
                    for _ in 0..25 {
                        dir.update_settings(|s| {
                            s.limits.max_pages += 1;
                            Ok::<_, ConfigError>(())
                        })
                        .unwrap();
                    }
                });
            }
        });
        let start = Limits::default().max_pages;
        assert_eq!(dir.load_settings().unwrap().limits.max_pages, start + 100);
        // A change that fails saves nothing.
        let failed: Result<(), ConfigError> = dir.update_settings(|s| {
            s.limits.max_pages = 1;
            Err(ConfigError::NoKeyEndpoint("test".into()))
        });
        assert!(failed.is_err());
        assert_eq!(dir.load_settings().unwrap().limits.max_pages, start + 100);
    }

    #[test]
    fn settings_round_trip_through_the_data_dir() -> Result<(), ConfigError> {
        let tmp = tempfile::tempdir().map_err(|source| ConfigError::Io {
            path: PathBuf::new(),
            source,
        })?;
        let dir = DataDir::at(tmp.path());
        dir.ensure()?;
        assert_eq!(dir.load_settings()?, Settings::default());
        let mut s = Settings::default();
        s.chunking.max_chars = 700;
        dir.save_settings(&s)?;
        assert_eq!(dir.load_settings()?.chunking.max_chars, 700);
        std::fs::write(dir.settings_file(), b"{not json").map_err(|source| ConfigError::Io {
            path: PathBuf::new(),
            source,
        })?;
        assert!(matches!(
            dir.load_settings(),
            Err(ConfigError::Invalid { .. })
        ));
        Ok(())
    }
}
