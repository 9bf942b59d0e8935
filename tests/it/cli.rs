//! The command line explains itself: an unknown name (provider, text format,
//! dialect) lists the known ones and suggests the nearest, with clap's exit
//! code 2 in every command; the older spellings still work; every help page
//! has examples, the provider list generated from the profiles, sizes in one
//! style and the global options last; an unknown flag is just unknown.

#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

use serde_json::Value;
use toolrouter::Dialect;
use toolrouter::providers::profiles;

use crate::support::toolrouter_bin;

/// Runs the binary in a fresh directory (so that no built-in tool reads the
/// repository); `stdin` is empty.
fn run(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    Command::new(toolrouter_bin())
        .args(args)
        .current_dir(dir.path())
        .env_remove("TOOLROUTER_LOG")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every name `--provider` lists: each profile, and each wire name a profile
/// offers (`openai-responses`).
fn provider_names() -> Vec<String> {
    let mut names = Vec::new();
    for p in profiles() {
        names.push(p.name.clone());
        names.extend(p.wire_aliases.keys().cloned());
    }
    names
}

fn text_format_names() -> Vec<String> {
    toolrouter::text_formats()
        .iter()
        .map(|f| f.to_string())
        .collect()
}

fn dialect_names() -> Vec<String> {
    Dialect::ALL.iter().map(|d| d.to_string()).collect()
}

/// A flag's bad value: exit code 2, every known name listed, `near` suggested.
fn check_unknown(args: &[&str], known: &[String], near: Option<&str>) {
    let out = run(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    let listed = err
        .lines()
        .find(|l| l.contains("[possible values: "))
        .unwrap_or_else(|| panic!("{args:?}: no list of the known names: {err}"));
    for name in known {
        assert!(
            listed.contains(&format!(" {name},")) || listed.contains(&format!(" {name}]")),
            "{args:?}: {name} is not listed: {err}"
        );
    }
    match near {
        Some(near) => assert!(
            err.lines()
                .any(|l| l.contains("tip: ") && l.contains(&format!("'{near}'"))),
            "{args:?}: {near} is not suggested: {err}"
        ),
        None => assert!(!err.contains("tip:"), "{args:?}: {err}"),
    }
}

#[test]
fn unknown_names_list_the_known_ones_and_suggest_the_near_one() {
    let providers = provider_names();
    let listen = [
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "http://127.0.0.1:9/v1",
    ];
    check_unknown(
        &["route", "--provider", "openai_compat", "turn.sse"],
        &providers,
        Some("openai-compatible"),
    );
    check_unknown(
        &["route", "--provider", "qwen", "turn.sse"],
        &providers,
        None,
    );
    check_unknown(
        &[
            "chat",
            "--provider",
            "antropic",
            "--model",
            "m",
            "--prompt",
            "hi",
        ],
        &providers,
        Some("anthropic"),
    );
    let proxy = [
        &["proxy"][..],
        &listen[..],
        &["--provider", "openai_compat"],
    ]
    .concat();
    check_unknown(&proxy, &providers, Some("openai-compatible"));
    // A wire name a profile offers is near too.
    let proxy = [
        &["proxy"][..],
        &listen[..],
        &["--provider", "openai-respones"],
    ]
    .concat();
    check_unknown(&proxy, &providers, Some("openai-responses"));

    let formats = text_format_names();
    let mut auto_and_formats = vec!["auto".to_owned()];
    auto_and_formats.extend(formats.iter().cloned());
    check_unknown(
        &["parse", "--format", "qwen"],
        &auto_and_formats,
        Some("qwen3-coder"),
    );
    check_unknown(
        &["parse", "--text-format", "phi4_mni"],
        &formats,
        Some("phi4-mini"),
    );
    check_unknown(
        &[
            "route",
            "--provider",
            "vllm",
            "--text-format",
            "hermez",
            "turn.sse",
        ],
        &formats,
        Some("hermes"),
    );
    let proxy = [
        &["proxy"][..],
        &listen[..],
        &["--provider", "vllm", "--text-format", "hermez"],
    ]
    .concat();
    check_unknown(&proxy, &formats, Some("hermes"));
    // A structured format is no text format (the nearest text format is
    // `openai-function`, 7 edits away, within half of its 15 bytes).
    check_unknown(
        &["parse", "--format", "openai-chat"],
        &auto_and_formats,
        Some("openai-function"),
    );

    let mut all_and_dialects = vec!["all".to_owned()];
    all_and_dialects.extend(dialect_names());
    check_unknown(
        &["tools", "--no-builtins", "--dialect", "open-ai-chat"],
        &all_and_dialects,
        Some("openai-chat"),
    );
}

#[test]
fn names_have_one_spelling_and_the_older_ones_still_work() {
    for name in provider_names()
        .iter()
        .chain(&text_format_names())
        .chain(&dialect_names())
    {
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{name} is not kebab-case"
        );
    }
    assert!(dialect_names().contains(&"openai-chat".to_owned()));
    assert!(dialect_names().contains(&"xml-text".to_owned()));

    // Older dialect spellings: the declarations come out under the one name.
    for (given, name) in [
        ("open_ai_chat", "openai-chat"),
        ("openai-chat", "openai-chat"),
    ] {
        let out = run(&["tools", "--dialect", given, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{given}: {}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let declarations = doc["declarations"].as_object().unwrap();
        assert_eq!(declarations.keys().collect::<Vec<_>>(), [name], "{given}");
    }
    let out = run(&["tools", "--dialect", "xml_text"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Older format spellings, for `--format` and `--text-format`; events
    // name the format in its one spelling.
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"name": "ls", "inputSchema": {"type": "object", "properties": {}}}]"#,
    )
    .unwrap();
    let qwen = dir.path().join("qwen.jsonl");
    std::fs::write(
        &qwen,
        "\"<tool_call>\\n<function=ls>\\n</function>\\n</tool_call>\"\n",
    )
    .unwrap();
    let phi = dir.path().join("phi.jsonl");
    std::fs::write(
        &phi,
        "\"functools[{\\\"name\\\": \\\"ls\\\", \\\"arguments\\\": {}}]\"\n",
    )
    .unwrap();
    let tools = tools.to_str().unwrap();
    let cases = [
        (&qwen, "--format", "qwen3_coder", "qwen3-coder"),
        (&qwen, "--format", "qwen3-coder", "qwen3-coder"),
        (&phi, "--text-format", "phi4_mini", "phi4-mini"),
        (&phi, "--text-format", "phi4-mini", "phi4-mini"),
    ];
    for (input, flag, given, name) in cases {
        let out = run(&[
            "parse",
            "--tools",
            tools,
            flag,
            given,
            input.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{given}: {}", stderr(&out));
        let end = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["type"] == "call_end")
            .unwrap_or_else(|| panic!("{given}: no call: {}", stdout(&out)));
        assert_eq!(end["call"]["name"], "ls");
        assert_eq!(end["call"]["format"], name, "{given}");
    }
}

/// `--help` of every command: its examples; of those that take
/// `--provider`, every profile and wire name.
#[test]
fn help_pages_have_examples_and_list_every_provider() {
    let commands = [
        "route",
        "chat",
        "tools",
        "upstreams",
        "serve",
        "parse",
        "proxy",
    ];
    for command in commands {
        for flag in ["--help", "-h"] {
            let out = run(&[command, flag]);
            assert_eq!(out.status.code(), Some(0), "{command}");
            let help = stdout(&out);
            let examples = help
                .split_once("\nExamples:\n")
                .unwrap_or_else(|| panic!("{command} {flag}: no examples: {help}"))
                .1;
            assert!(
                examples.contains(&format!("  toolrouter {command} ")),
                "{command} {flag}: {examples}"
            );
        }
    }
    for command in ["route", "chat", "proxy"] {
        let help = stdout(&run(&[command, "--help"]));
        for name in provider_names() {
            assert!(
                help.contains(&format!("- {name}: ")),
                "{command} --help lacks {name}: {help}"
            );
        }
        let short = stdout(&run(&[command, "-h"]));
        let listed = short
            .lines()
            .find(|l| l.trim_start().starts_with("--provider <NAME>"))
            .unwrap();
        for name in provider_names() {
            assert!(
                listed.contains(&format!(" {name}")),
                "{command} -h lacks {name}"
            );
        }
    }
    let root = stdout(&run(&["--help"]));
    assert!(root.contains("\nExamples:\n"), "{root}");
}

/// The global `--log-format` comes after every option of the command, under
/// its own heading; sizes read `16MiB`, in every command that takes one.
#[test]
fn help_pages_put_global_options_last_and_sizes_in_units() {
    for command in [
        "route",
        "chat",
        "tools",
        "upstreams",
        "serve",
        "parse",
        "proxy",
    ] {
        let help = stdout(&run(&[command, "--help"]));
        let global = help
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{command}: {help}"));
        let log_format = help.find("--log-format").unwrap();
        let own_help = help.find("-h, --help").unwrap();
        assert!(
            own_help < global && global < log_format,
            "{command}: {help}"
        );
    }
    // No size's default is a count of bytes (`[default: 16777216]`), and none
    // is written in the text (`Default: 16 MiB`): in the short help, one line
    // an option.
    for command in ["route", "chat", "parse", "proxy"] {
        let help = stdout(&run(&[command, "-h"]));
        assert!(!help.contains("Default: "), "{command}: {help}");
        let sizes: Vec<&str> = help
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("--") && (l.contains("-bytes ") || l.starts_with("--chunk ")))
            .collect();
        assert!(!sizes.is_empty(), "{command}: {help}");
        for line in sizes {
            assert!(line.contains(" <SIZE> "), "{command}: {line}");
            let default = line
                .split_once("[default: ")
                .and_then(|(_, rest)| rest.split_once(']'))
                .map(|(value, _)| value)
                .unwrap_or_else(|| panic!("{command}: {line}"));
            let unit = default.trim_start_matches(|c: char| c.is_ascii_digit());
            assert!(["KiB", "MiB", "GiB"].contains(&unit), "{command}: {line}");
        }
    }
    let proxy = stdout(&run(&["proxy", "--help"]));
    for default in ["[default: 16MiB]", "[default: 64MiB]"] {
        assert!(proxy.contains(default), "{default}: {proxy}");
    }
    let route = stdout(&run(&["route", "--help"]));
    for default in ["[default: 16MiB]", "[default: 64MiB]", "[default: 4KiB]"] {
        assert!(route.contains(default), "{default}: {route}");
    }
    // The proxy's summary names its three APIs.
    let root = stdout(&run(&["--help"]));
    let summary = root
        .lines()
        .find(|l| l.trim_start().starts_with("proxy "))
        .unwrap();
    for api in ["Chat Completions", "Responses", "Anthropic Messages"] {
        assert!(summary.contains(api), "{summary}");
    }
}

/// `toolrouter route --summary ARGS FILE` over an OpenAI stream of 100 pieces
/// of 960 bytes of text: the exit code and the stderr.
fn route_long_turn(args: &[&str]) -> (Option<i32>, String) {
    let piece = "lorem ipsum ".repeat(80);
    let mut stream = String::new();
    for _ in 0..100 {
        let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
        stream.push_str(&format!("data: {chunk}\n\n"));
    }
    stream.push_str("data: [DONE]\n\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turn.sse");
    std::fs::write(&path, stream).unwrap();
    let out = Command::new(toolrouter_bin())
        .args([
            "route",
            "--summary",
            "--no-builtins",
            "--provider",
            "openai",
        ])
        .args(args)
        .arg(&path)
        .current_dir(dir.path())
        .output()
        .unwrap();
    (out.status.code(), stderr(&out))
}

#[test]
fn sizes_take_a_unit_or_plain_bytes() {
    // The stream is over 90 KiB: 64 KiB is too little, 1 MiB is enough,
    // whichever way they are written.
    for small in ["64KiB", "64 KiB", "64kib", "65536"] {
        let (code, err) = route_long_turn(&["--max-turn-bytes", small, "--chunk", "1KiB"]);
        assert_eq!(code, Some(1), "{small}: {err}");
    }
    for large in ["1MiB", "1 MiB", "1048576"] {
        let (code, err) = route_long_turn(&["--max-turn-bytes", large, "--chunk", "1 KiB"]);
        assert_eq!(code, Some(0), "{large}: {err}");
    }
    for bad in ["16MB", "1.5MiB", "MiB"] {
        let (code, err) = route_long_turn(&["--max-turn-bytes", bad]);
        assert_eq!(code, Some(2), "{bad}: {err}");
        assert!(err.contains("is not a size"), "{bad}: {err}");
    }
    let listen = [
        "proxy",
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "http://127.0.0.1:9/v1",
    ];
    let out = run(&[
        &listen[..],
        &["--provider", "vllm", "--max-request-bytes", "16 MB"],
    ]
    .concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is not a size"), "{}", stderr(&out));
}

#[test]
fn an_unknown_flag_is_unknown_without_a_quoting_tip() {
    for args in [
        &["route", "--verbose", "--provider", "openai", "turn.sse"][..],
        &["parse", "--verbose"][..],
    ] {
        let out = run(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("unexpected argument '--verbose'"), "{err}");
        assert!(err.contains("try '--help'"), "{err}");
        assert!(!err.contains("tip:"), "{err}");
    }
    // A flag with a near name is still suggested.
    let out = run(&["route", "--jsn", "--provider", "openai", "turn.sse"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("tip: a similar argument exists: '--json'"),
        "{}",
        stderr(&out)
    );
}
