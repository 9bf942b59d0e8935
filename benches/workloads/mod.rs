//! Benchmark workloads shared by `benches/detect.rs` and `bench-compare/`: the
//! model text of one `write_to_file` call in every dialect, with given file
//! content as its `content` argument, written the way each model's chat template
//! writes it (`docs/formats.md`, `tests/data/dialects/`).
//!
//! A plain module (no criterion, only `serde_json`), included with `mod workloads;`
//! from `benches/detect.rs` and with a `#[path]` from `bench-compare`. It lives in
//! a directory so that cargo does not take it for a bench target of its own.

use serde_json::{Value, json};

/// The tool every workload calls.
pub(crate) const TOOL: &str = "write_to_file";

/// The `path` argument of every workload.
pub(crate) const PATH: &str = "src/big.rs";

/// Sizes of the `content` argument: label and bytes.
pub(crate) const SIZES: &[(&str, usize)] =
    &[("1K", 1024), ("16K", 16 * 1024), ("256K", 256 * 1024)];

/// File content of at most `size` bytes: quotes, backslashes, newlines,
/// braces and brackets, non-ASCII (`café 日本 🚀`). It neither starts nor ends
/// with whitespace, so every dialect's value rules (XML-style formats strip one
/// newline at each end) give it back unchanged.
pub(crate) fn content(size: usize) -> String {
    const LINE: &str = "let s = \"quote \\\"x\\\" path C:\\\\dir\"; // café 日本 🚀 {a: [1, 2]}";
    let mut out = String::with_capacity(size);
    while out.len() + LINE.len() < size || out.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(LINE);
    }
    out
}

/// The arguments every workload's call must yield.
pub(crate) fn expected_args(content: &str) -> Value {
    json!({"path": PATH, "content": content})
}

/// One dialect's workload generator.
pub(crate) struct Dialect {
    /// Bench name (`dialects/<name>/...`); unique.
    pub(crate) name: &'static str,
    /// The `WireFormat` name the detector reports for it.
    pub(crate) format: &'static str,
    /// The model text of one call whose `content` argument is the given text.
    pub(crate) text: fn(&str) -> String,
}

/// The arguments as compact JSON text.
fn args(content: &str) -> String {
    expected_args(content).to_string()
}

/// `content` as a double-quoted string literal; JSON's escapes are valid Python.
fn py_str(content: &str) -> String {
    Value::String(content.to_owned()).to_string()
}

/// Keyword arguments of a pythonic call.
fn py_call(content: &str) -> String {
    format!("{TOOL}(path={}, content={})", py_str(PATH), py_str(content))
}

/// Every dialect, core formats first.
pub(crate) const DIALECTS: &[Dialect] = &[
    Dialect {
        name: "xml",
        format: "xml",
        text: |c| format!("<{TOOL}><path>{PATH}</path><content>{c}</content></{TOOL}>"),
    },
    Dialect {
        name: "json_tool_use",
        format: "json_tool_use",
        text: |c| {
            format!(
                r#"{{"type":"tool_use","id":"toolu_1","name":"{TOOL}","input":{}}}"#,
                args(c)
            )
        },
    },
    Dialect {
        name: "open_ai_function",
        format: "open_ai_function",
        text: |c| {
            format!(
                r#"{{"tool_calls":[{{"id":"call_1","type":"function","function":{{"name":"{TOOL}","arguments":{}}}}}]}}"#,
                Value::String(args(c))
            )
        },
    },
    Dialect {
        // Hermes / Qwen 2.5 chat template: newline inside the tags.
        name: "hermes",
        format: "hermes",
        text: |c| {
            format!(
                "<tool_call>\n{{\"name\": \"{TOOL}\", \"arguments\": {}}}\n</tool_call>",
                args(c)
            )
        },
    },
    Dialect {
        name: "qwen3_coder",
        format: "qwen3_coder",
        text: |c| {
            format!(
                "<tool_call>\n<function={TOOL}>\n<parameter=path>\n{PATH}\n</parameter>\n<parameter=content>\n{c}\n</parameter>\n</function>\n</tool_call>"
            )
        },
    },
    Dialect {
        name: "anthropic_invoke",
        format: "anthropic_invoke",
        text: |c| {
            format!(
                "<function_calls>\n<invoke name=\"{TOOL}\">\n<parameter name=\"path\">{PATH}</parameter>\n<parameter name=\"content\">{c}</parameter>\n</invoke>\n</function_calls>"
            )
        },
    },
    Dialect {
        // Before v11 (SentencePiece tokenizers decode a space after the token).
        name: "mistral",
        format: "mistral",
        text: |c| {
            format!(
                "[TOOL_CALLS] [{{\"name\": \"{TOOL}\", \"arguments\": {}}}]",
                args(c)
            )
        },
    },
    Dialect {
        name: "mistral_v11",
        format: "mistral",
        text: |c| format!("[TOOL_CALLS]{TOOL}[ARGS]{}", args(c)),
    },
    Dialect {
        name: "llama3_json",
        format: "llama3_json",
        text: |c| {
            format!(
                "<|python_tag|>{{\"name\": \"{TOOL}\", \"parameters\": {}}}",
                args(c)
            )
        },
    },
    Dialect {
        name: "pythonic",
        format: "pythonic",
        text: |c| format!("[{}]", py_call(c)),
    },
    Dialect {
        name: "lfm2",
        format: "lfm2",
        text: |c| format!("<|tool_call_start|>[{}]<|tool_call_end|>", py_call(c)),
    },
    Dialect {
        name: "olmo3",
        format: "olmo3",
        text: |c| format!("<function_calls>{}</function_calls>", py_call(c)),
    },
    Dialect {
        name: "deepseek_v3",
        format: "deepseek_v3",
        text: |c| {
            format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{TOOL}\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                args(c)
            )
        },
    },
    Dialect {
        name: "deepseek_v31",
        format: "deepseek_v31",
        text: |c| {
            format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{TOOL}<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                args(c)
            )
        },
    },
    Dialect {
        // V3.2's block name (`function_calls`); V4 writes `tool_calls`.
        name: "deepseek_dsml",
        format: "deepseek_dsml",
        text: |c| {
            format!(
                "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"{TOOL}\">\n<｜DSML｜parameter name=\"path\" string=\"true\">{PATH}</｜DSML｜parameter>\n<｜DSML｜parameter name=\"content\" string=\"true\">{c}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
            )
        },
    },
    Dialect {
        name: "kimi_k2",
        format: "kimi_k2",
        text: |c| {
            format!(
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.{TOOL}:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
                args(c)
            )
        },
    },
    Dialect {
        name: "glm45",
        format: "glm45",
        text: |c| {
            format!(
                "<tool_call>{TOOL}\n<arg_key>path</arg_key>\n<arg_value>{PATH}</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{c}</arg_value>\n</tool_call>"
            )
        },
    },
    Dialect {
        name: "glm47",
        format: "glm47",
        text: |c| {
            format!(
                "<tool_call>{TOOL}<arg_key>path</arg_key><arg_value>{PATH}</arg_value><arg_key>content</arg_key><arg_value>{c}</arg_value></tool_call>"
            )
        },
    },
    Dialect {
        name: "minimax_m2",
        format: "minimax_m2",
        text: |c| {
            format!(
                "<minimax:tool_call>\n<invoke name=\"{TOOL}\">\n<parameter name=\"path\">{PATH}</parameter>\n<parameter name=\"content\">{c}</parameter>\n</invoke>\n</minimax:tool_call>"
            )
        },
    },
    Dialect {
        // The prompt ends with `<|start|>assistant`, so the output starts at the channel.
        name: "harmony",
        format: "harmony",
        text: |c| {
            format!(
                "<|channel|>commentary to=functions.{TOOL} <|constrain|>json<|message|>{}<|call|>",
                args(c)
            )
        },
    },
    Dialect {
        name: "step3",
        format: "step3",
        text: |c| {
            format!(
                "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{TOOL}\">\n<steptml:parameter name=\"path\">{PATH}</steptml:parameter>\n<steptml:parameter name=\"content\">{c}</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>"
            )
        },
    },
    Dialect {
        name: "internlm2",
        format: "internlm2",
        text: |c| {
            format!(
                "<|action_start|><|plugin|>\n{{\"name\": \"{TOOL}\", \"parameters\": {}}}<|action_end|>",
                args(c)
            )
        },
    },
    Dialect {
        name: "jamba_hunyuan",
        format: "jamba_hunyuan",
        text: |c| {
            format!(
                "<tool_calls>[{{\"name\": \"{TOOL}\", \"arguments\": {}}}]</tool_calls>",
                args(c)
            )
        },
    },
    Dialect {
        name: "granite",
        format: "granite",
        text: |c| {
            format!(
                "<|tool_call|>[{{\"name\": \"{TOOL}\", \"arguments\": {}}}]",
                args(c)
            )
        },
    },
    Dialect {
        // Off in auto-detection by default: the bench enables it explicitly.
        name: "phi4_mini",
        format: "phi4_mini",
        text: |c| {
            format!(
                "functools[{{\"name\": \"{TOOL}\", \"arguments\": {}}}]",
                args(c)
            )
        },
    },
    Dialect {
        // Command R7B template: four-space indentation, one call per line.
        name: "cohere",
        format: "cohere",
        text: |c| {
            format!(
                "<|START_ACTION|>[\n    {{\"tool_call_id\": \"0\", \"tool_name\": \"{TOOL}\", \"parameters\": {}}}\n]<|END_ACTION|>",
                args(c)
            )
        },
    },
    Dialect {
        // Keys sorted, strings between `<|"|>` tokens, unescaped.
        name: "gemma4",
        format: "gemma4",
        text: |c| {
            format!(
                "<|tool_call>call:{TOOL}{{content:<|\"|>{c}<|\"|>,path:<|\"|>{PATH}<|\"|>}}<tool_call|>"
            )
        },
    },
    Dialect {
        name: "longcat",
        format: "longcat",
        text: |c| {
            format!(
                "<longcat_tool_call>\n{{\"name\": \"{TOOL}\", \"arguments\": {}}}\n</longcat_tool_call>",
                args(c)
            )
        },
    },
];

/// The dialect named `name`.
pub(crate) fn dialect(name: &str) -> Option<&'static Dialect> {
    DIALECTS.iter().find(|d| d.name == name)
}

/// Cuts `s` into deltas of `n` bytes (longer at multi-byte characters, so that
/// every delta is a whole `&str`).
pub(crate) fn deltas(s: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(s.len() / n + 1);
    let mut pos = 0;
    while pos < s.len() {
        let mut end = (pos + n).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        out.push(&s[pos..end]);
        pos = end;
    }
    out
}
