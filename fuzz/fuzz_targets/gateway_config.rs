//! Fuzz target: the gateway's configuration reader (`GatewayConfig::from_toml_str`
//! and `from_json_str`) on arbitrary text. The first byte picks the format (even:
//! `toolrouter.toml`, odd: `mcpServers` JSON); the rest is the file, as UTF-8
//! (invalid sequences replaced).
//!
//! Checked: no panic; an error names the file; reading is deterministic; and a
//! file that is read gives values within what `read.rs` and `file.rs` promise:
//! non-empty unique server names, a non-empty stdio command, an http(s) URL,
//! valid and non-reserved headers, timeouts above 0 and at most a day, positive
//! limits, a separator of tool-name characters, and restart delays that never
//! exceed the longest one.
#![no_main]

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use toolrouter::{GatewayConfig, UpstreamTransport};

const DAY: Duration = Duration::from_secs(86_400);

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&format, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (path, read): (&Path, fn(&str, &Path) -> _) = if format % 2 == 0 {
        (
            Path::new("/fuzz/config/toolrouter.toml"),
            GatewayConfig::from_toml_str,
        )
    } else {
        (
            Path::new("/fuzz/config/mcp.json"),
            GatewayConfig::from_json_str,
        )
    };
    let first = read(&text, path);
    let again = read(&text, path);
    match (&first, &again) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "reading is deterministic"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "errors are deterministic"),
        _ => panic!("reading is deterministic: {first:?} then {again:?}"),
    }
    let config = match first {
        Ok(config) => config,
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.starts_with(&path.display().to_string()),
                "an error names the file: {message}"
            );
            return;
        }
    };
    check(&config);
});

fn check(config: &GatewayConfig) {
    let mut names = HashSet::new();
    for upstream in &config.upstreams {
        assert!(!upstream.name.trim().is_empty(), "empty server name");
        assert!(
            names.insert(upstream.name.as_str()),
            "server `{}` twice",
            upstream.name
        );
        if let Some(timeout) = upstream.timeout {
            assert!(
                timeout > Duration::ZERO && timeout <= DAY,
                "timeout {timeout:?}"
            );
        }
        match &upstream.transport {
            UpstreamTransport::Stdio(stdio) => {
                assert!(!stdio.command.trim().is_empty(), "empty command");
            }
            UpstreamTransport::Http(http) => {
                let url = url::Url::parse(&http.url).expect("a URL");
                assert!(
                    matches!(url.scheme(), "http" | "https"),
                    "not an http(s) URL: {}",
                    http.url
                );
                for (name, value) in &http.headers {
                    assert!(
                        http::HeaderName::from_bytes(name.as_bytes()).is_ok()
                            && http::HeaderValue::from_str(value).is_ok(),
                        "header {name:?}: {value:?}"
                    );
                    for reserved in ["accept", "mcp-session-id", "last-event-id"] {
                        assert!(
                            !name.eq_ignore_ascii_case(reserved),
                            "reserved header {name}"
                        );
                    }
                    assert!(
                        http.bearer_token.is_none() || !name.eq_ignore_ascii_case("authorization"),
                        "both an Authorization header and a bearer token"
                    );
                }
            }
            _ => {}
        }
        let _ = upstream.effective_prefix(&config.settings.naming);
    }
    let settings = &config.settings;
    if let Some(timeout) = settings.timeout {
        assert!(
            timeout > Duration::ZERO && timeout <= DAY,
            "timeout {timeout:?}"
        );
    }
    assert!(
        settings.connect_timeout > Duration::ZERO && settings.connect_timeout <= DAY,
        "connect timeout {:?}",
        settings.connect_timeout
    );
    assert!(settings.max_description_chars > 0);
    assert!(settings.max_tools_per_upstream > 0);
    assert!(
        settings
            .naming
            .separator
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
        "separator {:?}",
        settings.naming.separator
    );
    let restart = settings.restart;
    assert!(restart.initial_backoff > Duration::ZERO);
    assert!(restart.max_backoff > Duration::ZERO);
    for attempt in [0, 1, 2, 10, 31, 32, 63, 64, u32::MAX] {
        assert!(
            restart.delay(attempt) <= restart.max_backoff,
            "delay {attempt} over the longest"
        );
    }
}
