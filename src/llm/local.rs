//! The built-in local model: a GGUF file run in this process by llama.cpp (`llama-cpp-2`), no
//! server and no network.
//!
//! Owns: the llama.cpp backend (one per process), loading a model file (kept while it is used,
//! unloaded after a time without use, 5 minutes by default), the chat template the file carries, greedy
//! generation streamed token by token on a blocking thread with every core, cancellation (the
//! caller drops the future: `llm` does at its time limit), token counts and timings. Must not: know
//! prompts about documents, price tokens (a local token costs nothing) or reach the network.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use serde::Serialize;

use super::{Completion, LlmError, Message};

/// By default a loaded model is freed after this long without use (`llm.local_idle_secs`): a
/// 0.5–8 B model holds 0.5–6 GB that the rest of the workstation needs back. Longer keeps
/// follow-ups fast, shorter frees memory sooner.
pub const IDLE_UNLOAD: Duration = Duration::from_secs(300);
/// The unloading thread looks at the loaded model at least this often.
const UNLOAD_CHECK: Duration = Duration::from_secs(15);
/// Prompt tokens per decode call (llama.cpp's default batch).
const BATCH: usize = 512;

/// What a model file says about itself (`policypal models add` shows it).
#[derive(Debug, Clone, Serialize)]
pub struct ModelInfo {
    /// The file.
    pub path: PathBuf,
    /// Parameters.
    pub parameters: u64,
    /// Context length it was trained for (tokens).
    pub context: u32,
    /// Size of its weights in bytes.
    pub bytes: u64,
}

/// Timings of one generation (`policypal bench generate`).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Stats {
    /// Prompt tokens (after the chat template).
    pub prompt_tokens: u32,
    /// Generated tokens.
    pub completion_tokens: u32,
    /// Milliseconds to load the model (0 when it was loaded already).
    pub load_ms: f64,
    /// Milliseconds reading the prompt.
    pub prompt_ms: f64,
    /// Milliseconds from the start until the first generated token.
    pub first_token_ms: f64,
    /// Milliseconds generating after the prompt.
    pub generate_ms: f64,
}

struct Runtime {
    backend: LlamaBackend,
    loaded: Mutex<Option<Loaded>>,
}

struct Loaded {
    path: PathBuf,
    model: Arc<LlamaModel>,
    last_used: Instant,
    /// Freed after this long without use.
    idle: Duration,
}

/// The process's llama.cpp backend (it can be started once per process) and the loaded model.
static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// Starts the backend on first use, with llama.cpp's log silenced (it would write to standard
/// error) and the thread that unloads an idle model.
fn runtime() -> Result<&'static Runtime, String> {
    RUNTIME
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(
                llama_cpp_2::LogOptions::default().with_logs_enabled(false),
            );
            let backend = LlamaBackend::init().map_err(|e| e.to_string())?;
            std::thread::Builder::new()
                .name("local-model-unload".into())
                .spawn(unload_when_idle)
                .map_err(|e| e.to_string())?;
            Ok(Runtime {
                backend,
                loaded: Mutex::new(None),
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Frees the loaded model once it has been idle for its time and nothing uses it.
fn unload_when_idle() {
    let mut wait = Duration::from_secs(1);
    loop {
        std::thread::sleep(wait);
        let Some(Ok(rt)) = RUNTIME.get() else {
            continue;
        };
        let mut slot = rt.loaded.lock().unwrap_or_else(|e| e.into_inner());
        let idle = slot
            .as_ref()
            .is_some_and(|l| l.last_used.elapsed() >= l.idle && Arc::strong_count(&l.model) == 1);
        if idle {
            tracing::info!("local model unloaded after being idle");
            *slot = None;
        }
        // Nothing loaded: look again soon (the next load may set a short idle time).
        wait = slot.as_ref().map_or(Duration::from_secs(1), |l| {
            (l.idle / 2).clamp(Duration::from_millis(100), UNLOAD_CHECK)
        });
    }
}

/// The model file loaded now, if any.
pub fn loaded() -> Option<PathBuf> {
    let rt = RUNTIME.get()?.as_ref().ok()?;
    let slot = rt.loaded.lock().unwrap_or_else(|e| e.into_inner());
    slot.as_ref().map(|l| l.path.clone())
}

fn load_error(path: &Path, message: impl Into<String>) -> LlmError {
    LlmError::LocalLoad {
        path: path.to_owned(),
        message: message.into(),
    }
}

fn run_error(path: &Path, message: impl std::fmt::Display) -> LlmError {
    LlmError::LocalRun {
        path: path.to_owned(),
        message: message.to_string(),
    }
}

/// A GGUF file starts with these bytes.
const GGUF_MAGIC: &[u8; 4] = b"GGUF";

/// Checks that `path` is a GGUF file llama.cpp can read: the magic bytes first (a clear error
/// for any other file), then its metadata and vocabulary (no weights are read) and its chat
/// template, without which its replies could not be framed.
pub fn inspect(path: &Path) -> Result<ModelInfo, LlmError> {
    check_magic(path)?;
    let rt = runtime().map_err(|e| load_error(path, e))?;
    let params = LlamaModelParams::default().with_vocab_only(true);
    let model = LlamaModel::load_from_file(&rt.backend, path, &params)
        .map_err(|e| load_error(path, format!("llama.cpp could not read it ({e})")))?;
    model.chat_template(None).map_err(|e| {
        load_error(
            path,
            format!("it has no chat template, so its replies cannot be framed ({e})"),
        )
    })?;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    // Without its weights loaded llama.cpp reports no context length: read the metadata.
    let context = model
        .meta_val_str("general.architecture")
        .ok()
        .and_then(|arch| model.meta_val_str(&format!("{arch}.context_length")).ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| model.n_ctx_train());
    Ok(ModelInfo {
        path: path.to_owned(),
        parameters: model.n_params(),
        context,
        bytes,
    })
}

fn check_magic(path: &Path) -> Result<(), LlmError> {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .map_err(|e| load_error(path, e.to_string()))?;
    if &head != GGUF_MAGIC {
        return Err(load_error(path, "not a GGUF model file"));
    }
    Ok(())
}

/// The model of `path`, loaded now unless it is loaded already (another model is unloaded
/// first: two would hold twice the memory), to be freed after `idle` without use; the load
/// time in milliseconds (0 when cached).
fn model(
    rt: &'static Runtime,
    path: &Path,
    idle: Duration,
) -> Result<(Arc<LlamaModel>, f64), LlmError> {
    let mut slot = rt.loaded.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = slot.as_mut().filter(|l| l.path == path) {
        l.last_used = Instant::now();
        l.idle = idle;
        return Ok((l.model.clone(), 0.0));
    }
    *slot = None;
    check_magic(path)?;
    let start = Instant::now();
    let model = LlamaModel::load_from_file(&rt.backend, path, &LlamaModelParams::default())
        .map_err(|e| load_error(path, format!("llama.cpp could not load it ({e})")))?;
    let model = Arc::new(model);
    *slot = Some(Loaded {
        path: path.to_owned(),
        model: model.clone(),
        last_used: Instant::now(),
        idle,
    });
    Ok((model, start.elapsed().as_secs_f64() * 1000.0))
}

/// Sets its flag when dropped: the generation thread stops at its next token once the caller
/// has gone (cancelled, timed out).
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Streams a reply of the model in `path` to `messages` (generation runs on a blocking thread
/// and stops when this future is dropped); the model is freed after `idle` without use.
pub async fn complete(
    path: &Path,
    idle: Duration,
    messages: &[Message],
    on_token: &(dyn Fn(&str) + Send + Sync),
    max_tokens: u32,
) -> Result<Completion, LlmError> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(cancel.clone());
    let owned_path = path.to_owned();
    let owned = messages.to_vec();
    let task = tokio::task::spawn_blocking(move || {
        let emit = |t: &str| {
            let _ = tx.send(t.to_owned());
        };
        generate(&owned_path, idle, &owned, max_tokens, &emit, &cancel)
    });
    let mut out = Completion::default();
    while let Some(t) = rx.recv().await {
        on_token(&t);
        out.text.push_str(&t);
    }
    let stats = task.await.map_err(|e| run_error(path, e))??;
    out.usage.prompt_tokens = stats.prompt_tokens;
    out.usage.completion_tokens = stats.completion_tokens;
    Ok(out)
}

/// Generates a reply on this thread (it blocks: call it from a blocking thread), giving each
/// piece of text to `emit` as soon as it is whole UTF-8 (and an empty piece after each batch of
/// the prompt is read: progress before the first token); stops at the model's end of turn,
/// after `max_new` tokens, at the end of its context or when `cancel` is set.
pub fn generate(
    path: &Path,
    idle: Duration,
    messages: &[Message],
    max_new: u32,
    emit: &dyn Fn(&str),
    cancel: &AtomicBool,
) -> Result<Stats, LlmError> {
    let start = Instant::now();
    let rt = runtime().map_err(|e| load_error(path, e))?;
    let (model, load_ms) = model(rt, path, idle)?;
    let fail = |e: &dyn std::fmt::Display| run_error(path, e);
    let template = model.chat_template(None).map_err(|e| fail(&e))?;
    let chat = messages
        .iter()
        .map(|m| match m {
            Message::System(s) => LlamaChatMessage::new("system".into(), s.clone()),
            Message::User(s) => LlamaChatMessage::new("user".into(), s.clone()),
            Message::Assistant(s) => LlamaChatMessage::new("assistant".into(), s.clone()),
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(&e))?;
    let prompt = model
        .apply_chat_template(&template, &chat, true)
        .map_err(|e| fail(&e))?;
    let vocab = model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
    let n_prompt = u32::try_from(tokens.len()).map_err(|e| fail(&e))?;
    let trained = model.n_ctx_train();
    if n_prompt + 8 > trained {
        return Err(fail(&format!(
            "the prompt has {n_prompt} tokens; the model reads at most {trained}"
        )));
    }
    let n_ctx = (n_prompt + max_new).min(trained);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = i32::try_from(threads).unwrap_or(1);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(n_ctx))
        .with_n_batch(BATCH as u32)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut ctx = model
        .new_context(&rt.backend, params)
        .map_err(|e| fail(&e))?;
    let mut batch = LlamaBatch::new(BATCH, 1);
    let prompt_start = Instant::now();
    for (i, chunk) in tokens.chunks(BATCH).enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(fail(&"cancelled"));
        }
        batch.clear();
        for (j, t) in chunk.iter().enumerate() {
            let pos = i * BATCH + j;
            let last = pos + 1 == tokens.len();
            batch
                .add(*t, i32::try_from(pos).map_err(|e| fail(&e))?, &[0], last)
                .map_err(|e| fail(&e))?;
        }
        ctx.decode(&mut batch).map_err(|e| fail(&e))?;
        // A heartbeat: reading a long prompt takes many seconds on a CPU and is progress.
        emit("");
    }
    let prompt_ms = prompt_start.elapsed().as_secs_f64() * 1000.0;
    let mut stats = Stats {
        prompt_tokens: n_prompt,
        load_ms,
        prompt_ms,
        ..Stats::default()
    };
    let generate_start = Instant::now();
    let mut sampler = LlamaSampler::greedy();
    let mut pieces = Utf8Pieces::default();
    let mut pos = n_prompt;
    while !cancel.load(Ordering::Relaxed) {
        let token = sampler.sample(&ctx, batch.n_tokens() - 1);
        sampler.accept(token);
        if vocab.is_eog(token) {
            break;
        }
        stats.completion_tokens += 1;
        if stats.completion_tokens == 1 {
            stats.first_token_ms = start.elapsed().as_secs_f64() * 1000.0;
        }
        let text = pieces.push(&vocab.token_to_piece(token, false, None));
        if !text.is_empty() {
            emit(&text);
        }
        if stats.completion_tokens >= max_new || pos + 1 >= n_ctx {
            break;
        }
        batch.clear();
        batch
            .add(token, i32::try_from(pos).map_err(|e| fail(&e))?, &[0], true)
            .map_err(|e| fail(&e))?;
        pos += 1;
        ctx.decode(&mut batch).map_err(|e| fail(&e))?;
    }
    let rest = pieces.finish();
    if !rest.is_empty() {
        emit(&rest);
    }
    stats.generate_ms = generate_start.elapsed().as_secs_f64() * 1000.0;
    if let Some(l) = rt.loaded.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        l.last_used = Instant::now();
    }
    Ok(stats)
}

/// Token pieces into text: a token can end inside a multi-byte character, whose rest comes
/// with the next token; whole characters are given out as soon as they are complete.
#[derive(Debug, Default)]
struct Utf8Pieces(Vec<u8>);

impl Utf8Pieces {
    /// The text completed by `bytes`.
    fn push(&mut self, bytes: &[u8]) -> String {
        self.0.extend_from_slice(bytes);
        let whole = match std::str::from_utf8(&self.0) {
            Ok(_) => self.0.len(),
            // An invalid sequence (not merely an unfinished one) is given out as U+FFFD.
            Err(e) if e.error_len().is_some() => self.0.len(),
            Err(e) => e.valid_up_to(),
        };
        let done: Vec<u8> = self.0.drain(..whole).collect();
        String::from_utf8_lossy(&done).into_owned()
    }

    /// What is left at the end (an unfinished character becomes U+FFFD).
    fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.0);
        String::from_utf8_lossy(&rest).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_tokens_is_given_out_whole() {
        let mut p = Utf8Pieces::default();
        let e = "é".as_bytes();
        assert_eq!(p.push(b"caf"), "caf");
        assert_eq!(p.push(&e[..1]), "");
        assert_eq!(p.push(&e[1..]), "é");
        let euro = "€".as_bytes();
        assert_eq!(p.push(&euro[..2]), "");
        assert_eq!(p.finish(), "\u{FFFD}");
        assert_eq!(p.push(&[0xff, b'a']), "\u{FFFD}a");
    }

    #[test]
    fn an_idle_model_is_freed_and_loads_again_when_asked() {
        let gguf = std::env::var_os("POLICYPAL_TEST_GGUF")
            .map(PathBuf::from)
            .expect("POLICYPAL_TEST_GGUF: run scripts/test.sh, which fetches the test model");
        let idle = Duration::from_millis(500);
        let ask = || {
            let messages = [Message::User("Reply with the word: yes".into())];
            generate(
                &gguf,
                idle,
                &messages,
                4,
                &|_: &str| {},
                &AtomicBool::new(false),
            )
            .unwrap()
        };
        assert!(ask().completion_tokens > 0);
        assert_eq!(loaded(), Some(gguf.clone()));
        let start = Instant::now();
        while loaded().is_some() && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(loaded(), None, "freed after {idle:?} without use");
        let again = ask();
        assert!(again.load_ms > 0.0, "loaded again: {again:?}");
    }

    #[test]
    fn a_file_that_is_not_gguf_is_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("pp-gguf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("notes.gguf");
        std::fs::write(&f, b"%PDF-1.7 not a model").unwrap();
        let e = inspect(&f).unwrap_err().to_string();
        assert!(
            e.contains("not a GGUF model file") && e.contains("notes.gguf"),
            "{e}"
        );
        let missing = inspect(&dir.join("missing.gguf")).unwrap_err().to_string();
        assert!(missing.contains("missing.gguf"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
