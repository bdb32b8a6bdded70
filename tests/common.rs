//! Shared helpers: the real model (loaded once), fixtures, throw-away libraries and PDFs built
//! with lopdf.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use policypal::config::{DataDir, EmbedderSettings, Settings};
use policypal::embed::minilm::{Arithmetic, MiniLm};
use policypal::store::Profile;
use policypal::{Flow, IngestReport, IngestRequest, Library, Progress};

/// The model directory: `$POLICYPAL_MODEL_DIR`, else `models/all-MiniLM-L6-v2` in the repo.
pub fn model_dir() -> PathBuf {
    std::env::var_os("POLICYPAL_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2"))
}

/// The real all-MiniLM-L6-v2, loaded once per test binary (default arithmetic).
pub fn model() -> Arc<MiniLm> {
    static MODEL: OnceLock<Arc<MiniLm>> = OnceLock::new();
    MODEL.get_or_init(|| load(Arithmetic::Integer)).clone()
}

/// The same model with f32 dense layers (the reference arithmetic), loaded once.
pub fn float_model() -> Arc<MiniLm> {
    static MODEL: OnceLock<Arc<MiniLm>> = OnceLock::new();
    MODEL.get_or_init(|| load(Arithmetic::Float)).clone()
}

fn load(arithmetic: Arithmetic) -> Arc<MiniLm> {
    Arc::new(
        MiniLm::load_with(&model_dir(), arithmetic).unwrap_or_else(|e| {
            panic!("the tests need the real model; run scripts/test.sh to fetch it: {e}")
        }),
    )
}

/// A fixture PDF.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The program that serves as text-extraction worker for libraries opened in this test binary
/// (which cannot serve as one itself): the `policypal` CLI built with the tests.
pub fn worker() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_policypal"))
}

/// A library in a temporary data directory, sharing the loaded model.
pub struct TestLib {
    /// Keeps the directory alive.
    pub tmp: tempfile::TempDir,
    /// The library.
    pub lib: Library,
}

impl TestLib {
    pub async fn new() -> Self {
        Self::with_settings(Settings::default()).await
    }

    pub async fn with_settings(mut settings: Settings) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        settings.extract_worker.get_or_insert_with(worker);
        if settings.embedder == (EmbedderSettings::Local { model_dir: None }) {
            settings.embedder = EmbedderSettings::Local {
                model_dir: Some(model_dir()),
            };
        }
        let dir = DataDir::at(tmp.path());
        dir.ensure().unwrap();
        dir.save_settings(&settings).unwrap();
        let lib = Library::open(dir).await.unwrap().with_embedder(model());
        Self { tmp, lib }
    }

    /// Opens the same data directory again (as a restart would).
    pub async fn reopen(self) -> Self {
        self.lib.close().await;
        let dir = DataDir::at(self.tmp.path());
        let lib = Library::open(dir).await.unwrap().with_embedder(model());
        Self { tmp: self.tmp, lib }
    }

    pub async fn profile(&self, name: &str) -> Profile {
        self.lib.ensure_profile(name).await.unwrap()
    }

    pub fn dir(&self) -> &Path {
        self.tmp.path()
    }
}

/// The profile the model tests ask with ("alice", banking in Malaysia: the prompts must carry
/// it), with `capital-2024.pdf` in its library.
pub async fn banking_profile(t: &TestLib) -> Profile {
    let context = policypal::store::UserContext {
        organisation: String::new(),
        industry: "Banking".into(),
        location: "Malaysia".into(),
    };
    let p = t
        .lib
        .store()
        .create_profile("alice", &context)
        .await
        .unwrap();
    ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    p
}

/// An ingestion request with defaults.
pub fn request(path: impl Into<PathBuf>) -> IngestRequest {
    IngestRequest::file(path)
}

/// Ingests without progress reporting.
pub async fn ingest(
    lib: &Library,
    profile: &Profile,
    req: IngestRequest,
) -> Result<IngestReport, policypal::Error> {
    lib.ingest(profile, &req, &|_: &Progress| Flow::Continue)
        .await
}

/// The ids of a profile's documents, in the library's order.
pub async fn document_ids(lib: &Library, profile: &Profile) -> Vec<String> {
    lib.documents(profile)
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect()
}

/// Ingests a fixture of `tests/fixtures/` with default settings; the ready document.
pub async fn ingest_fixture(
    lib: &Library,
    profile: &Profile,
    name: &str,
) -> policypal::store::Document {
    ingest(lib, profile, request(fixture(name)))
        .await
        .unwrap()
        .document
}

/// Runs one message through the agent without watching its events; the turn.
pub async fn ask_ok(
    agent: &policypal::agent::Agent<'_>,
    profile: &Profile,
    req: policypal::agent::types::AskRequest,
) -> policypal::agent::types::TurnResult {
    agent
        .ask(profile, req, &|_: &policypal::agent::types::Event| {})
        .await
        .unwrap()
}

/// An audit of `text` against the document `id`.
pub fn audit_of(id: &str, text: &str) -> policypal::agent::types::AskRequest {
    policypal::agent::types::AskRequest {
        text: text.into(),
        documents: vec![id.to_owned()],
        action: Some(policypal::agent::types::Action::Audit),
        ..Default::default()
    }
}

/// A PDF whose pages hold the given lines of text (Helvetica, one text object per page). The
/// pages are as large as the longest line and the most lines need: text outside a page is not
/// shown by a PDF viewer, and not read by pdftotext.
pub fn make_pdf(pages: &[String]) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    // Helvetica at 10 points: under 7 points a character, 12 points a line.
    let longest = pages
        .iter()
        .flat_map(|p| p.lines())
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let most_lines = pages.iter().map(|p| p.lines().count()).max().unwrap_or(0);
    let width = i64::try_from(80 + 7 * longest).unwrap().max(595);
    let height = i64::try_from(84 + 12 * most_lines).unwrap().max(842);
    let mut kids: Vec<Object> = Vec::new();
    for text in pages {
        let mut ops = vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 10.into()]),
            Operation::new("TL", vec![12.into()]),
            Operation::new("Td", vec![40.into(), (height - 42).into()]),
        ];
        for line in text.lines() {
            ops.push(Operation::new("Tj", vec![Object::string_literal(line)]));
            ops.push(Operation::new("T*", vec![]));
        }
        ops.push(Operation::new("ET", vec![]));
        let content = Content { operations: ops };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = i64::try_from(kids.len()).unwrap();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), width.into(), height.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut buf = Vec::new();
    doc.save_to(&mut buf).unwrap();
    buf
}

/// Writes bytes to a file in `dir` and returns its path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// `n` pages of distinct, sentence-like text (enough for several chunks per page).
pub fn prose_pages(n: usize, topic: &str) -> Vec<String> {
    (1..=n)
        .map(|p| {
            (1..=30)
                .map(|l| format!("Page {p} line {l}: the {topic} rule number {} requires careful review by the officer.", p * 100 + l))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// Reads one HTTP/1.1 request from a socket of a local test server: the head and the body (by
/// its Content-Length). `None` when the peer closes first.
pub async fn read_request(sock: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    loop {
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return Some((text[..end].to_owned(), buf[end + 4..end + 4 + len].to_vec()));
            }
        }
    }
}

/// Asserts that every citation's quote is verbatim on the page it cites (as stored at ingestion).
pub async fn assert_quotes_on_pages(
    lib: &Library,
    profile: &Profile,
    citations: &[policypal::agent::types::Citation],
) {
    for c in citations {
        let page = lib
            .store()
            .page_text(&profile.id, &c.document_id, c.page)
            .await
            .unwrap()
            .unwrap();
        assert!(
            page.contains(&c.quote),
            "quote not verbatim on page {}: {:?}",
            c.page,
            c.quote
        );
    }
}
