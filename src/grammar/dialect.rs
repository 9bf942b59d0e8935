//! How each dialect writes its calls ([`Envelope`]): the text around a call,
//! where the name and the arguments go, how arguments are spelled, how
//! parallel calls are grouped, the trigger that opens a call region, and the
//! reasoning block a model may write first. One row per text dialect the
//! detector reads; the rows are the shapes `docs/formats.md` shows.

use crate::core::WireFormat;

/// One piece of a call or of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Fixed text.
    Lit(&'static str),
    /// The tool's name.
    Name,
    /// One decimal digit (Kimi K2's call index, Cohere's call id).
    Digit,
    /// The arguments.
    Args,
    /// A parameter's name.
    Key,
    /// A parameter's value.
    Value,
    /// DSML's `string` flag: `true` before a raw string value, `false`
    /// before a JSON value.
    Flag,
}

/// Where an XML value's text sits in its tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueLayout {
    /// `<p>value</p>`: the value cannot start or end with a newline (the
    /// detector strips one there).
    Inline,
    /// `<p>\nvalue\n</p>`: the envelope's newlines are the ones stripped.
    Wrapped,
}

/// How the arguments are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgsStyle {
    /// One JSON object.
    Json,
    /// One tag per parameter; values typed by the schema as the detector
    /// types them (raw text for strings, JSON for the rest).
    Xml {
        /// The pieces of one parameter, its trailing separator included.
        param: &'static [Part],
        /// Where the value sits.
        layout: ValueLayout,
        /// Whether a line opening another parameter ends a value
        /// (Qwen3-Coder): a raw value then never holds `<p`.
        opener_ends_value: bool,
        /// Whether a parameter's tag carries DSML's `string` flag.
        flag: bool,
        /// Which bytes a parameter name may hold.
        key_bytes: KeyBytes,
    },
    /// Python keyword arguments, `k=v, …`.
    PythonKwargs,
    /// Gemma 4's object, `{k:v,…}`.
    Gemma,
}

/// The bytes a parameter name may hold in an XML dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyBytes {
    /// A tag name: ASCII letters, digits, `_`, `-`, `.`, `:`.
    TagName,
    /// An attribute or `=` value: anything but `<`, `>`, `"` and a newline.
    Attribute,
}

/// How the calls of a turn are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Each call is its own block; parallel calls are blocks joined by `sep`.
    PerCall { sep: &'static str },
    /// One section holds the turn's calls, joined by `sep`.
    Section {
        open: &'static str,
        close: &'static str,
        sep: &'static str,
    },
}

/// The text that opens a call region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// This text, whatever the tool.
    Fixed(&'static str),
    /// The call's text up to and including the name and the byte after it
    /// (`<read_file>`, `[get_weather(`): the dialect has no marker of its own.
    PerTool,
}

/// How one dialect writes its calls.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Envelope {
    pub(crate) layout: Layout,
    pub(crate) trigger: Trigger,
    /// The pieces of one call (one `Name` and one `Args`).
    pub(crate) call: &'static [Part],
    pub(crate) args: ArgsStyle,
    /// The reasoning block that may come first.
    pub(crate) reasoning: Reasoning,
    /// The header of an answer without calls, where free text is not plain
    /// text (harmony's final channel); such an answer holds no call.
    pub(crate) answer: Option<&'static str>,
}

/// A reasoning block: `open`, text without `marker`, `close` (which starts
/// with `marker`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reasoning {
    pub(crate) open: &'static str,
    pub(crate) close: &'static str,
    pub(crate) marker: &'static str,
}

use Part::{Args, Digit, Flag, Key, Lit, Name, Value};

const THINK: Reasoning = Reasoning {
    open: "<think>\n",
    close: "</think>\n\n",
    marker: "</think>",
};

const fn per_call(sep: &'static str) -> Layout {
    Layout::PerCall { sep }
}

/// XML parameters of `param`, each value inline in its tag (`<p …>value</p>`),
/// each name an attribute's text: the shape of the invoke-style dialects.
const fn inline_params(param: &'static [Part]) -> ArgsStyle {
    ArgsStyle::Xml {
        param,
        layout: ValueLayout::Inline,
        opener_ends_value: false,
        flag: false,
        key_bytes: KeyBytes::Attribute,
    }
}

/// JSON `{"name": NAME, KEY: ARGS}` call objects, the shape of the JSON-list
/// dialects.
const NAME_ARGUMENTS: &[Part] = &[
    Lit("{\"name\": \""),
    Name,
    Lit("\", \"arguments\": "),
    Args,
    Lit("}"),
];

/// The envelope of `dialect`; `None` for formats that are not text dialects.
pub(crate) fn envelope(dialect: WireFormat) -> Option<Envelope> {
    use WireFormat as W;
    let json = ArgsStyle::Json;
    Some(match dialect {
        W::Xml => Envelope {
            layout: per_call("\n"),
            trigger: Trigger::PerTool,
            call: &[Lit("<"), Name, Lit(">\n"), Args, Lit("</"), Name, Lit(">")],
            args: ArgsStyle::Xml {
                param: &[Lit("<"), Key, Lit(">"), Value, Lit("</"), Key, Lit(">\n")],
                layout: ValueLayout::Inline,
                opener_ends_value: false,
                flag: false,
                key_bytes: KeyBytes::TagName,
            },
            reasoning: THINK,
            answer: None,
        },
        W::Hermes => Envelope {
            layout: per_call("\n"),
            trigger: Trigger::Fixed("<tool_call>"),
            call: &[
                Lit("<tool_call>\n{\"name\": \""),
                Name,
                Lit("\", \"arguments\": "),
                Args,
                Lit("}\n</tool_call>"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::Qwen3Coder => Envelope {
            layout: per_call("\n"),
            trigger: Trigger::Fixed("<tool_call>"),
            call: &[
                Lit("<tool_call>\n<function="),
                Name,
                Lit(">\n"),
                Args,
                Lit("</function>\n</tool_call>"),
            ],
            args: ArgsStyle::Xml {
                param: &[
                    Lit("<parameter="),
                    Key,
                    Lit(">\n"),
                    Value,
                    Lit("\n</parameter>\n"),
                ],
                layout: ValueLayout::Wrapped,
                opener_ends_value: true,
                flag: false,
                key_bytes: KeyBytes::Attribute,
            },
            reasoning: THINK,
            answer: None,
        },
        W::AnthropicInvoke | W::MinimaxM2 => {
            let (open, close) = if dialect == W::MinimaxM2 {
                ("<minimax:tool_call>\n", "</minimax:tool_call>")
            } else {
                ("<function_calls>\n", "</function_calls>")
            };
            Envelope {
                layout: Layout::Section {
                    open,
                    close,
                    sep: "",
                },
                trigger: Trigger::Fixed(open.trim_end_matches('\n')),
                call: &[
                    Lit("<invoke name=\""),
                    Name,
                    Lit("\">\n"),
                    Args,
                    Lit("</invoke>\n"),
                ],
                args: inline_params(&[
                    Lit("<parameter name=\""),
                    Key,
                    Lit("\">"),
                    Value,
                    Lit("</parameter>\n"),
                ]),
                reasoning: THINK,
                answer: None,
            }
        }
        W::Glm45 | W::Glm47 => {
            let glm45 = dialect == W::Glm45;
            Envelope {
                layout: per_call("\n"),
                trigger: Trigger::Fixed("<tool_call>"),
                call: if glm45 {
                    &[
                        Lit("<tool_call>"),
                        Name,
                        Lit("\n"),
                        Args,
                        Lit("</tool_call>"),
                    ]
                } else {
                    &[Lit("<tool_call>"), Name, Args, Lit("</tool_call>")]
                },
                args: inline_params(if glm45 {
                    &[
                        Lit("<arg_key>"),
                        Key,
                        Lit("</arg_key>\n<arg_value>"),
                        Value,
                        Lit("</arg_value>\n"),
                    ]
                } else {
                    &[
                        Lit("<arg_key>"),
                        Key,
                        Lit("</arg_key><arg_value>"),
                        Value,
                        Lit("</arg_value>"),
                    ]
                }),
                reasoning: THINK,
                answer: None,
            }
        }
        W::Step3 => Envelope {
            layout: Layout::Section {
                open: "<｜tool_calls_begin｜>\n",
                close: "<｜tool_calls_end｜>",
                sep: "",
            },
            trigger: Trigger::Fixed("<｜tool_calls_begin｜>"),
            call: &[
                Lit("<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\""),
                Name,
                Lit("\">\n"),
                Args,
                Lit("</steptml:invoke><｜tool_call_end｜>\n"),
            ],
            args: inline_params(&[
                Lit("<steptml:parameter name=\""),
                Key,
                Lit("\">"),
                Value,
                Lit("</steptml:parameter>\n"),
            ]),
            reasoning: THINK,
            answer: None,
        },
        W::DeepSeekDsml => Envelope {
            layout: Layout::Section {
                open: "<｜DSML｜function_calls>\n",
                close: "</｜DSML｜function_calls>",
                sep: "",
            },
            trigger: Trigger::Fixed("<｜DSML｜function_calls>"),
            call: &[
                Lit("<｜DSML｜invoke name=\""),
                Name,
                Lit("\">\n"),
                Args,
                Lit("</｜DSML｜invoke>\n"),
            ],
            args: ArgsStyle::Xml {
                param: &[
                    Lit("<｜DSML｜parameter name=\""),
                    Key,
                    Lit("\" string=\""),
                    Flag,
                    Lit("\">"),
                    Value,
                    Lit("</｜DSML｜parameter>\n"),
                ],
                layout: ValueLayout::Inline,
                opener_ends_value: false,
                flag: true,
                key_bytes: KeyBytes::Attribute,
            },
            reasoning: THINK,
            answer: None,
        },
        W::Harmony => Envelope {
            layout: per_call("<|start|>assistant"),
            trigger: Trigger::Fixed("<|channel|>commentary to="),
            call: &[
                Lit("<|channel|>commentary to=functions."),
                Name,
                Lit(" <|constrain|>json<|message|>"),
                Args,
                Lit("<|call|>"),
            ],
            args: json,
            reasoning: Reasoning {
                open: "<|channel|>analysis<|message|>",
                close: "<|end|><|start|>assistant",
                marker: "<|end|>",
            },
            answer: Some("<|channel|>final<|message|>"),
        },
        W::OpenAiFunction => Envelope {
            layout: Layout::Section {
                open: "{\"tool_calls\": [",
                close: "]}",
                sep: ", ",
            },
            trigger: Trigger::Fixed("{\"tool_calls\": ["),
            call: &[
                Lit("{\"type\": \"function\", \"function\": {\"name\": \""),
                Name,
                Lit("\", \"arguments\": "),
                Args,
                Lit("}}"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::JsonToolUse => Envelope {
            layout: per_call("\n"),
            trigger: Trigger::Fixed("{\"type\": \"tool_use\""),
            call: &[
                Lit("{\"type\": \"tool_use\", \"name\": \""),
                Name,
                Lit("\", \"input\": "),
                Args,
                Lit("}"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::Llama3Json => Envelope {
            layout: Layout::Section {
                open: "<|python_tag|>",
                close: "",
                sep: "; ",
            },
            trigger: Trigger::Fixed("<|python_tag|>"),
            call: &[
                Lit("{\"name\": \""),
                Name,
                Lit("\", \"parameters\": "),
                Args,
                Lit("}"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::DeepSeekV3 => Envelope {
            layout: Layout::Section {
                open: "<｜tool▁calls▁begin｜>",
                close: "<｜tool▁calls▁end｜>",
                sep: "\n",
            },
            trigger: Trigger::Fixed("<｜tool▁calls▁begin｜>"),
            call: &[
                Lit("<｜tool▁call▁begin｜>function<｜tool▁sep｜>"),
                Name,
                Lit("\n```json\n"),
                Args,
                Lit("\n```<｜tool▁call▁end｜>"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::DeepSeekV31 => Envelope {
            layout: Layout::Section {
                open: "<｜tool▁calls▁begin｜>",
                close: "<｜tool▁calls▁end｜>",
                sep: "",
            },
            trigger: Trigger::Fixed("<｜tool▁calls▁begin｜>"),
            call: &[
                Lit("<｜tool▁call▁begin｜>"),
                Name,
                Lit("<｜tool▁sep｜>"),
                Args,
                Lit("<｜tool▁call▁end｜>"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::KimiK2 => Envelope {
            layout: Layout::Section {
                open: "<|tool_calls_section_begin|>",
                close: "<|tool_calls_section_end|>",
                sep: "",
            },
            trigger: Trigger::Fixed("<|tool_calls_section_begin|>"),
            call: &[
                Lit("<|tool_call_begin|>functions."),
                Name,
                Lit(":"),
                Digit,
                Lit("<|tool_call_argument_begin|>"),
                Args,
                Lit("<|tool_call_end|>"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::Mistral => Envelope {
            layout: per_call(""),
            trigger: Trigger::Fixed("[TOOL_CALLS]"),
            call: &[Lit("[TOOL_CALLS]"), Name, Lit("[ARGS]"), Args],
            args: json,
            reasoning: Reasoning {
                open: "[THINK]",
                close: "[/THINK]",
                marker: "[/THINK]",
            },
            answer: None,
        },
        W::Granite => Envelope {
            layout: Layout::Section {
                open: "<|tool_call|>[",
                close: "]",
                sep: ", ",
            },
            trigger: Trigger::Fixed("<|tool_call|>"),
            call: NAME_ARGUMENTS,
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::JambaHunyuan => Envelope {
            layout: Layout::Section {
                open: "<tool_calls>[",
                close: "]</tool_calls>",
                sep: ", ",
            },
            trigger: Trigger::Fixed("<tool_calls>"),
            call: NAME_ARGUMENTS,
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::Phi4Mini => Envelope {
            layout: Layout::Section {
                open: "functools[",
                close: "]",
                sep: ", ",
            },
            trigger: Trigger::Fixed("functools["),
            call: NAME_ARGUMENTS,
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::InternLm2 => Envelope {
            layout: per_call("\n"),
            trigger: Trigger::Fixed("<|action_start|>"),
            call: &[
                Lit("<|action_start|><|plugin|>\n{\"name\": \""),
                Name,
                Lit("\", \"parameters\": "),
                Args,
                Lit("}<|action_end|>"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::LongCat => Envelope {
            layout: per_call("\n"),
            trigger: Trigger::Fixed("<longcat_tool_call>"),
            call: &[
                Lit("<longcat_tool_call>\n{\"name\": \""),
                Name,
                Lit("\", \"arguments\": "),
                Args,
                Lit("}\n</longcat_tool_call>"),
            ],
            args: json,
            reasoning: THINK,
            answer: None,
        },
        W::Cohere => Envelope {
            layout: Layout::Section {
                open: "<|START_ACTION|>[\n    ",
                close: "\n]<|END_ACTION|>",
                sep: ",\n    ",
            },
            trigger: Trigger::Fixed("<|START_ACTION|>"),
            call: &[
                Lit("{\"tool_call_id\": \""),
                Digit,
                Lit("\", \"tool_name\": \""),
                Name,
                Lit("\", \"parameters\": "),
                Args,
                Lit("}"),
            ],
            args: json,
            reasoning: Reasoning {
                open: "<|START_THINKING|>",
                close: "<|END_THINKING|>",
                marker: "<|END_THINKING|>",
            },
            answer: None,
        },
        W::Pythonic => Envelope {
            layout: Layout::Section {
                open: "[",
                close: "]",
                sep: ", ",
            },
            trigger: Trigger::PerTool,
            call: &[Name, Lit("("), Args, Lit(")")],
            args: ArgsStyle::PythonKwargs,
            reasoning: THINK,
            answer: None,
        },
        W::Lfm2 => Envelope {
            layout: Layout::Section {
                open: "<|tool_call_start|>[",
                close: "]<|tool_call_end|>",
                sep: ", ",
            },
            trigger: Trigger::Fixed("<|tool_call_start|>"),
            call: &[Name, Lit("("), Args, Lit(")")],
            args: ArgsStyle::PythonKwargs,
            reasoning: THINK,
            answer: None,
        },
        W::Olmo3 => Envelope {
            layout: Layout::Section {
                open: "<function_calls>",
                close: "</function_calls>",
                sep: "\n",
            },
            trigger: Trigger::Fixed("<function_calls>"),
            call: &[Name, Lit("("), Args, Lit(")")],
            args: ArgsStyle::PythonKwargs,
            reasoning: THINK,
            answer: None,
        },
        W::Gemma4 => Envelope {
            layout: per_call(""),
            trigger: Trigger::Fixed("<|tool_call>"),
            call: &[Lit("<|tool_call>call:"), Name, Args, Lit("<tool_call|>")],
            args: ArgsStyle::Gemma,
            reasoning: Reasoning {
                open: "<|channel>thought\n",
                close: "<channel|>",
                marker: "<channel|>",
            },
            answer: None,
        },
        _ => return None,
    })
}
