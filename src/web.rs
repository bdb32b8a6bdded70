//! Web search through Tavily's search API.
//!
//! Owns: the request (`POST {base_url}/search`, bearer key from the keychain, a time limit),
//! decoding Tavily's response, and redacting the query when the profile asks for it. Must not:
//! decide how web results are shown (the agent keeps them apart from document citations), or
//! log queries or keys at info level. Off by default: a user switches it on in settings.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Errors of web search.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// Web search is switched off in settings.
    #[error(
        "web search is off: set \"web\": {{\"enabled\": true}} in settings.json (or switch it on in the app's settings)"
    )]
    Disabled,
    /// No key in the keychain for the configured service.
    #[error(
        "web search needs an API key stored for its service: policypal keys set web-search-api-key"
    )]
    NoKey,
    /// The service could not be reached (offline, DNS, refused) or failed.
    #[error("web search at {url} failed: {message}")]
    Remote {
        /// Base URL.
        url: String,
        /// What happened (never the key).
        message: String,
    },
    /// The reply was not Tavily's response format.
    #[error("web search at {url} answered in an unexpected format: {message}")]
    BadResponse {
        /// Base URL.
        url: String,
        /// What was wrong.
        message: String,
    },
}

/// Web search settings (`"web"` in settings.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WebSettings {
    /// Web search may be used (off by default: nothing leaves the machine unless asked).
    pub enabled: bool,
    /// Base URL of a Tavily-compatible API.
    pub base_url: String,
    /// Results per search.
    pub max_results: u32,
    /// Seconds a search may take.
    pub timeout_secs: u64,
}

impl Default for WebSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            base_url: "https://api.tavily.com".into(),
            max_results: 5,
            timeout_secs: 20,
        }
    }
}

/// One web result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebResult {
    /// Page title.
    pub title: String,
    /// Address.
    pub url: String,
    /// The extract the service returned (what quotes come from).
    pub content: String,
    /// The service's relevance score.
    #[serde(default)]
    pub score: f32,
}

#[derive(Deserialize)]
struct TavilyResponse {
    results: Vec<WebResult>,
}

/// Searches the web for `query`; personal data in the query is redacted when `redactor` is
/// given. The key comes from the keychain.
pub async fn search(
    settings: &WebSettings,
    query: &str,
    redactor: Option<&crate::redact::Redactor>,
) -> Result<Vec<WebResult>, crate::Error> {
    if !settings.enabled {
        return Err(WebError::Disabled.into());
    }
    let stored = crate::secrets::get(crate::secrets::WEB_SEARCH_KEY)?.ok_or(WebError::NoKey)?;
    // Over https, or plain http to this machine only, and only to the service the key was
    // stored for (the same rules as the model's key).
    let key = crate::secrets::key_for(&settings.base_url, Some(stored))?;
    if key.is_empty() {
        return Err(WebError::NoKey.into());
    }
    let mut session = redactor.map(crate::redact::Redactor::session);
    let query = match session.as_mut() {
        Some(s) => s.redact(query),
        None => query.to_owned(),
    };
    let restore = |t: &str| match &session {
        Some(s) => s.restore(t),
        None => t.to_owned(),
    };
    let url = settings.base_url.trim_end_matches('/').to_owned();
    let remote = |message: String| WebError::Remote {
        url: url.clone(),
        message,
    };
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(settings.timeout_secs.max(1)))
        .build()
        .map_err(|e| remote(e.to_string()))?;
    let resp = client
        .post(format!("{url}/search"))
        .bearer_auth(key)
        .json(&serde_json::json!({
            "query": query,
            "max_results": settings.max_results.clamp(1, 20),
            "search_depth": "basic",
            "include_answer": false,
            "include_raw_content": false,
        }))
        .send()
        .await
        .map_err(|e| {
            if e.is_timeout() {
                remote(format!(
                    "no answer within {} s",
                    settings.timeout_secs.max(1)
                ))
            } else {
                remote(format!(
                    "could not reach the service ({}); check the connection",
                    e.without_url()
                ))
            }
        })?;
    let status = resp.status();
    if !status.is_success() {
        let why = match status.as_u16() {
            401 | 403 => "the API key was refused".to_owned(),
            429 => "rate limit reached; try again later".to_owned(),
            _ => format!("HTTP {status}"),
        };
        return Err(remote(why).into());
    }
    let body: TavilyResponse = resp.json().await.map_err(|e| WebError::BadResponse {
        url: url.clone(),
        message: e.without_url().to_string(),
    })?;
    Ok(body
        .results
        .into_iter()
        .filter(|r| !r.url.trim().is_empty() && !r.content.trim().is_empty())
        .map(|r| WebResult {
            title: restore(r.title.trim()),
            url: r.url.trim().to_owned(),
            content: restore(r.content.trim()),
            score: r.score,
        })
        .collect())
}
