//! Text extraction in a child process, the way browsers isolate PDF parsing.
//!
//! The PDF libraries run in a worker: this same program started again with [`WORKER_ARG`]
//! (both binaries call [`serve_if_asked`] first thing in `main`). The worker reads the PDF on
//! standard input and writes its pages, or a typed [`IngestError`], as JSON on standard output.
//! It runs under an address-space limit (`limits.extract_memory_mb`, set with `setrlimit` in the
//! worker before it reads anything) and a wall-clock limit after which the parent kills it; its
//! output is capped (`limits.max_text_chars`). A stack overflow (a form that draws itself), a
//! decompression bomb or a hang ends the worker, never the app: the parent turns the way it
//! ended into a typed error, and nothing of the attempt is kept.
//!
//! OCR runs the same way (`ocr`): the worker renders and reads the scanned pages with external
//! programs, which inherit its memory limit; it is started in a process group of its own, and
//! the parent ends the whole group on a timeout, a cancel or an error, so no renderer or
//! recogniser outlives the attempt. Recognised pages arrive one JSON line each, for progress.
//!
//! Owns: the worker's protocol, its limits and reading how it ended. Must not: clean, chunk or
//! store anything.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

use super::IngestError;
use super::ocr::{self, OcrPage};
use super::pdf::{self, RawPage};
use crate::config::Limits;

/// The first argument that makes this program an extraction worker.
pub const WORKER_ARG: &str = "--policypal-extract-worker";
/// The extraction task's argument giving `pdftotext` its time in seconds (0: not used,
/// `limits.poppler = false`): half the extraction's limit, so that the built-in extractors
/// have the other half when it is stopped.
const POPPLER_SECS: &str = "--poppler-secs=";

/// Time the structural check may take (it parses the file, nothing more).
const INSPECT_BUDGET: Duration = Duration::from_secs(60);

/// Most bytes of its error output the parent keeps from a worker.
const STDERR_CAP: u64 = 64 * 1024;

/// Longest wait for the next recognised page: a 300 dpi page takes 2–4 s on one core here, a
/// page that takes a minute is hostile or the machine is stuck.
const OCR_PAGE_BUDGET: Duration = Duration::from_secs(120);

/// What a worker is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Task {
    /// Magic bytes, parse, encryption, page count.
    Inspect,
    /// Every page's text.
    Extract,
    /// OCR of the pages named.
    Ocr,
}

impl Task {
    fn as_str(self) -> &'static str {
        match self {
            Self::Inspect => "inspect",
            Self::Extract => "extract",
            Self::Ocr => "ocr",
        }
    }
}

/// What a worker writes on standard output.
#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    /// The page count ([`Task::Inspect`]).
    Pages(usize),
    /// The pages' text ([`Task::Extract`]).
    Text(Vec<RawPage>),
    /// The PDF cannot be ingested.
    Refused(IngestError),
}

/// One line of an OCR worker's output.
#[derive(Debug, Serialize, Deserialize)]
enum OcrLine {
    /// A page was read.
    Page(OcrPage),
    /// A page could not be read (it stays without text).
    Failed {
        /// The page.
        page: u32,
        /// What the renderer or recogniser said.
        reason: String,
    },
}

/// Ends a worker's whole process group (the worker and the programs it started) when dropped:
/// on a timeout, a cancel, an error, or after the worker exited on its own.
struct Group(Option<u32>);

impl Drop for Group {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.0.and_then(|p| i32::try_from(p).ok()) {
            use nix::sys::signal::{Signal, killpg};
            // The group may already be gone: nothing to end then.
            let _ = killpg(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// A started worker: the process, its output pipes, and the task feeding it the PDF.
struct Started {
    child: tokio::process::Child,
    stdout: tokio::process::ChildStdout,
    stderr: tokio::process::ChildStderr,
    feed: tokio::task::JoinHandle<()>,
}

/// The program that serves as the worker.
#[derive(Debug, Clone)]
pub struct Worker {
    program: PathBuf,
}

impl Worker {
    /// `program` serves [`WORKER_ARG`]; `None`: this program.
    pub fn new(program: Option<&Path>) -> Result<Self, IngestError> {
        let program = match program {
            Some(p) => p.to_owned(),
            None => std::env::current_exe().map_err(|e| IngestError::ExtractorCrashed {
                reason: format!("cannot find this program to start the extraction worker: {e}"),
            })?,
        };
        Ok(Self { program })
    }

    /// Checks size-independent structure in the worker; the page count.
    pub async fn inspect(
        &self,
        bytes: Arc<Vec<u8>>,
        limits: &Limits,
    ) -> Result<usize, IngestError> {
        let budget = INSPECT_BUDGET.min(Duration::from_secs(limits.extract_timeout_secs.max(1)));
        match self.run(Task::Inspect, bytes, limits, budget).await? {
            Reply::Pages(n) => Ok(n),
            Reply::Refused(e) => Err(e),
            Reply::Text(_) => Err(protocol("pages of text where a page count was expected")),
        }
    }

    /// Extracts every page's text in the worker.
    pub async fn extract(
        &self,
        bytes: Arc<Vec<u8>>,
        limits: &Limits,
    ) -> Result<Vec<RawPage>, IngestError> {
        let budget = Duration::from_secs(limits.extract_timeout_secs.max(1));
        match self.run(Task::Extract, bytes, limits, budget).await? {
            Reply::Text(pages) => Ok(pages),
            Reply::Refused(e) => Err(e),
            Reply::Pages(_) => Err(protocol("a page count where text was expected")),
        }
    }

    /// Reads the scanned `pages` with OCR in `language`, in a worker. `progress(done, total)`
    /// is called after each page; when it returns `false` the worker and its programs are
    /// ended and `None` is returned. A page the programs fail on stays without text.
    pub async fn recognise(
        &self,
        bytes: Arc<Vec<u8>>,
        pages: &[u32],
        language: &str,
        limits: &Limits,
        progress: &mut (dyn FnMut(usize, usize) -> bool + Send),
    ) -> Result<Option<Vec<OcrPage>>, IngestError> {
        let dir = tempfile::Builder::new()
            .prefix("policypal-ocr-")
            .tempdir()
            .map_err(|e| protocol(&format!("cannot create a folder for rendered pages: {e}")))?;
        let mut extra: Vec<String> = vec![language.to_owned(), dir.path().display().to_string()];
        extra.extend(pages.iter().map(u32::to_string));
        let Started {
            mut child,
            stdout,
            stderr,
            feed,
        } = self.start(Task::Ocr, limits, &extra, true, bytes)?;
        // Declared after `dir`, so dropped before it: the programs end before their folder goes.
        let _group = Group(child.id());
        let read_err = tokio::spawn(async move {
            let mut err = Vec::new();
            let _ = stderr.take(STDERR_CAP).read_to_end(&mut err).await;
            err
        });
        let total = pages.len();
        if !progress(0, total) {
            return Ok(None);
        }
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let (mut read, mut chars) = (Vec::with_capacity(total), 0usize);
        let mut done = 0;
        loop {
            let line = match tokio::time::timeout(OCR_PAGE_BUDGET, lines.next_line()).await {
                Err(_) => {
                    return Err(IngestError::ExtractionTimeout {
                        seconds: OCR_PAGE_BUDGET.as_secs(),
                    });
                }
                Ok(Err(e)) => return Err(protocol(&format!("reading the OCR worker: {e}"))),
                Ok(Ok(None)) => break,
                Ok(Ok(Some(line))) => line,
            };
            match serde_json::from_str::<OcrLine>(&line)
                .map_err(|e| protocol(&format!("the OCR worker's reply did not parse: {e}")))?
            {
                OcrLine::Page(page) => {
                    chars += page.text.chars().count();
                    if chars > limits.max_text_chars {
                        return Err(IngestError::TooMuchText {
                            max: limits.max_text_chars,
                        });
                    }
                    read.push(page);
                }
                OcrLine::Failed { page, reason } => {
                    tracing::warn!(page, %reason, "OCR could not read a page");
                }
            }
            done += 1;
            if !progress(done, total) {
                return Ok(None);
            }
        }
        feed.abort();
        let status = child
            .wait()
            .await
            .map_err(|e| protocol(&format!("waiting for the OCR worker: {e}")))?;
        if !status.success() {
            let err = read_err.await.unwrap_or_default();
            return Err(ended(&status, &String::from_utf8_lossy(&err), limits));
        }
        read.sort_by_key(|p| p.number);
        Ok(Some(read))
    }

    /// Starts the worker for `task` with the limits and `extra` arguments (in a process group
    /// of its own when `own_group`, so that the programs it starts can be ended with it) and
    /// feeds it the PDF on its standard input.
    fn start(
        &self,
        task: Task,
        limits: &Limits,
        extra: &[String],
        own_group: bool,
        bytes: Arc<Vec<u8>>,
    ) -> Result<Started, IngestError> {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .arg(WORKER_ARG)
            .arg(task.as_str())
            .arg(limits.max_pages.to_string())
            .arg(limits.max_text_chars.to_string())
            .arg(limits.extract_memory_mb.to_string())
            .args(extra)
            // mimalloc reserves 1 GiB of address space up front by default, which would leave
            // nothing under the worker's limit (and no room to report a stack overflow).
            .env("MIMALLOC_ARENA_RESERVE", "64MiB")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if own_group {
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|e| IngestError::ExtractorCrashed {
            reason: format!(
                "the extraction worker {} did not start: {e}",
                self.program.display()
            ),
        })?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(protocol("the worker's pipes are missing"));
        };
        let feed = tokio::spawn(async move {
            // A worker that dies early closes its end: the broken pipe is its exit's to explain.
            let _ = stdin.write_all(&bytes).await;
            let _ = stdin.shutdown().await;
        });
        Ok(Started {
            child,
            stdout,
            stderr,
            feed,
        })
    }

    async fn run(
        &self,
        task: Task,
        bytes: Arc<Vec<u8>>,
        limits: &Limits,
        budget: Duration,
    ) -> Result<Reply, IngestError> {
        let poppler_secs = if limits.poppler {
            (limits.extract_timeout_secs / 2).max(1)
        } else {
            0
        };
        let extra = [format!("{POPPLER_SECS}{poppler_secs}")];
        let Started {
            mut child,
            stdout,
            stderr,
            feed,
        } = self.start(task, limits, &extra, false, bytes)?;
        // Characters as JSON: escapes take up to six bytes, and the page records a little more.
        let cap = (limits.max_text_chars as u64).saturating_mul(6) + 1024 * 1024;
        let read_out = async move {
            let mut out = Vec::new();
            stdout
                .take(cap + 1)
                .read_to_end(&mut out)
                .await
                .map(|_| out)
        };
        let read_err = async move {
            let mut err = Vec::new();
            let _ = stderr.take(STDERR_CAP).read_to_end(&mut err).await;
            err
        };
        let finished = tokio::time::timeout(budget, async {
            let (out, err) = tokio::join!(read_out, read_err);
            let status = child.wait().await;
            (out, err, status)
        })
        .await;
        feed.abort();
        let Ok((out, err, status)) = finished else {
            // `kill_on_drop`: the worker is killed with the future that owned it.
            return Err(IngestError::ExtractionTimeout {
                seconds: budget.as_secs(),
            });
        };
        let out = out.map_err(|e| protocol(&format!("reading the worker's output: {e}")))?;
        if out.len() as u64 > cap {
            return Err(IngestError::TooMuchText {
                max: limits.max_text_chars,
            });
        }
        let status = status.map_err(|e| protocol(&format!("waiting for the worker: {e}")))?;
        if status.success() {
            return serde_json::from_slice(&out)
                .map_err(|e| protocol(&format!("the worker's reply did not parse: {e}")));
        }
        Err(ended(&status, &String::from_utf8_lossy(&err), limits))
    }
}

fn protocol(what: &str) -> IngestError {
    IngestError::ExtractorCrashed {
        reason: what.to_owned(),
    }
}

/// The typed error for a worker that did not exit normally.
fn ended(status: &std::process::ExitStatus, stderr: &str, limits: &Limits) -> IngestError {
    tracing::debug!(stderr = %stderr, "the extraction worker failed");
    if stderr.contains("memory allocation of") || stderr.contains("out of memory") {
        return IngestError::OutOfMemory {
            limit_mb: limits.extract_memory_mb,
        };
    }
    let reason = if stderr.contains("overflowed its stack") {
        "stack overflow: the PDF nests its content without end".to_owned()
    } else {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(status);
        #[cfg(not(unix))]
        let signal: Option<i32> = None;
        match (signal, status.code()) {
            (Some(s), _) => format!("the extraction process was ended by signal {s}"),
            (None, Some(c)) => format!("the extraction process exited with status {c}"),
            (None, None) => "the extraction process ended abnormally".to_owned(),
        }
    };
    IngestError::ExtractorCrashed { reason }
}

/// Runs the worker and returns its exit code when this process was started as one (the first
/// argument is [`WORKER_ARG`]); `None` otherwise. Call it first thing in `main`.
pub fn serve_if_asked() -> Option<i32> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some(WORKER_ARG) {
        return None;
    }
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<u64>().ok());
    let (Some(max_pages), Some(max_chars), Some(memory_mb)) = (number(2), number(3), number(4))
    else {
        eprintln!("usage: {WORKER_ARG} inspect|extract MAX_PAGES MAX_CHARS MEMORY_MB < file.pdf");
        return Some(2);
    };
    let task = match args.get(1).map(String::as_str) {
        Some("inspect") => Task::Inspect,
        Some("extract") => Task::Extract,
        Some("ocr") => Task::Ocr,
        _ => return Some(2),
    };
    if let Err(e) = limit_memory(memory_mb) {
        eprintln!("cannot limit the worker's memory: {e}");
        return Some(3);
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes) {
        eprintln!("cannot read the PDF: {e}");
        return Some(3);
    }
    let max_pages = usize::try_from(max_pages).unwrap_or(usize::MAX);
    let max_chars = usize::try_from(max_chars).unwrap_or(usize::MAX);
    let reply = match task {
        Task::Ocr => return Some(serve_ocr(&bytes, args.get(5..).unwrap_or_default())),
        Task::Inspect => match pdf::inspect(&bytes, max_pages) {
            Ok(n) => Reply::Pages(n),
            Err(e) => Reply::Refused(e),
        },
        Task::Extract => {
            let poppler_secs = args
                .get(5)
                .and_then(|a| a.strip_prefix(POPPLER_SECS))
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            match pdf::extract_with(&bytes, poppler_secs) {
                Ok(pages)
                    if pages.iter().map(|p| p.text.chars().count()).sum::<usize>() > max_chars =>
                {
                    Reply::Refused(IngestError::TooMuchText { max: max_chars })
                }
                Ok(pages) => Reply::Text(pages),
                Err(e) => Reply::Refused(e),
            }
        }
    };
    let mut out = std::io::stdout().lock();
    match serde_json::to_writer(&mut out, &reply) {
        Ok(()) => Some(0),
        Err(e) => {
            eprintln!("cannot write the reply: {e}");
            Some(3)
        }
    }
}

/// The OCR task: `args` are the language, the folder for rendered pages and the page numbers.
/// Pages are shared out among one thread per core (each runs one renderer and one recogniser
/// at a time); each page's result is written as one line as soon as it is read.
fn serve_ocr(bytes: &[u8], args: &[String]) -> i32 {
    let [language, dir, pages @ ..] = args else {
        eprintln!(
            "usage: {WORKER_ARG} ocr MAX_PAGES MAX_CHARS MEMORY_MB LANGUAGE DIR PAGE... < file.pdf"
        );
        return 2;
    };
    let dir = Path::new(dir);
    let pages: Vec<u32> = pages.iter().filter_map(|p| p.parse().ok()).collect();
    let sizes = match pdf::page_sizes(bytes) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read the PDF's pages: {e}");
            return 3;
        }
    };
    let input = dir.join("input.pdf");
    if let Err(e) = std::fs::write(&input, bytes) {
        eprintln!("cannot write the PDF for the renderer: {e}");
        return 3;
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .clamp(1, pages.len().max(1));
    let (send, receive) = std::sync::mpsc::channel::<OcrLine>();
    std::thread::scope(|scope| {
        for first in 0..threads {
            let (send, pages, sizes, input) = (send.clone(), &pages, &sizes, &input);
            scope.spawn(move || {
                for &page in pages.iter().skip(first).step_by(threads) {
                    let (w, h) = sizes.get(&page).copied().unwrap_or((612.0, 792.0));
                    let line = match ocr::dpi_for(w, h) {
                        None => OcrLine::Failed {
                            page,
                            reason: format!(
                                "a page of {w} × {h} points cannot be rendered for OCR"
                            ),
                        },
                        Some(dpi) => match ocr::recognise(input, dir, page, dpi, language) {
                            Ok(read) => OcrLine::Page(read),
                            Err(reason) => OcrLine::Failed { page, reason },
                        },
                    };
                    if send.send(line).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut out = std::io::stdout().lock();
        for line in receive {
            let written = serde_json::to_writer(&mut out, &line)
                .map_err(std::io::Error::from)
                .and_then(|()| std::io::Write::write_all(&mut out, b"\n"))
                .and_then(|()| std::io::Write::flush(&mut out));
            if let Err(e) = written {
                eprintln!("cannot write a page: {e}");
                return 3;
            }
        }
        0
    })
}

/// Caps this process's address space.
fn limit_memory(mb: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, getrlimit, setrlimit};
        let (_, hard) = getrlimit(Resource::RLIMIT_AS).map_err(std::io::Error::from)?;
        // Never above a limit the process already has (raising it is not allowed).
        let bytes = mb.saturating_mul(1024 * 1024).min(hard);
        setrlimit(Resource::RLIMIT_AS, bytes, hard).map_err(std::io::Error::from)
    }
    #[cfg(not(unix))]
    {
        let _ = mb;
        Ok(())
    }
}
