//! Provider profiles: every file parses, every required provider is there, names resolve.

use toolrouter_providers::{Wire, find_profile, profiles};

#[test]
fn every_required_provider_has_a_profile() {
    let want = [
        ("openai", Wire::OpenAiChat),
        ("azure-openai", Wire::OpenAiChat),
        ("anthropic", Wire::Anthropic),
        ("gemini", Wire::Gemini),
        ("vertex", Wire::Gemini),
        ("bedrock", Wire::Bedrock),
        ("ollama", Wire::Ollama),
        ("mistral", Wire::OpenAiChat),
        ("deepseek", Wire::OpenAiChat),
        ("groq", Wire::OpenAiChat),
        ("openrouter", Wire::OpenAiChat),
        ("together", Wire::OpenAiChat),
        ("fireworks", Wire::OpenAiChat),
        ("xai", Wire::OpenAiChat),
        ("vllm", Wire::OpenAiChat),
        ("lmstudio", Wire::OpenAiChat),
        ("llamacpp", Wire::OpenAiChat),
        ("sglang", Wire::OpenAiChat),
    ];
    for (name, wire) in want {
        let m = find_profile(name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((m.profile.name.as_str(), m.wire), (name, wire));
    }
    assert_eq!(profiles().len(), 19);
}

#[test]
fn fixture_prefixes_resolve_to_their_wire() {
    for (prefix, wire) in [
        ("openai-chat", Wire::OpenAiChat),
        ("openai-responses", Wire::OpenAiResponses),
        ("anthropic", Wire::Anthropic),
        ("gemini", Wire::Gemini),
        ("vertex", Wire::Gemini),
        ("ollama", Wire::Ollama),
        ("bedrock", Wire::Bedrock),
        ("mistral", Wire::OpenAiChat),
        ("openai-compat", Wire::OpenAiChat),
        ("LLAMA.CPP", Wire::OpenAiChat),
    ] {
        assert_eq!(find_profile(prefix).unwrap().wire, wire, "{prefix}");
    }
    let err = find_profile("nope").unwrap_err();
    assert_eq!(err.to_string(), "unknown provider or wire name `nope`");
}

#[test]
fn profiles_are_complete_and_names_unique() {
    let mut seen = std::collections::HashSet::new();
    for p in profiles() {
        for name in std::iter::once(&p.name)
            .chain(&p.aliases)
            .chain(p.wire_aliases.keys())
        {
            assert!(seen.insert(name.to_lowercase()), "name `{name}` used twice");
        }
        assert!(!p.quirks.is_empty(), "{} lists no quirks", p.name);
        assert!(p.base_url.starts_with("http"), "{}", p.name);
        assert!(p.limits.tool_name_max_len > 0 && p.limits.tool_name_pattern.starts_with('^'));
        assert!(
            p.api_key_env
                .as_deref()
                .is_some_and(|v| v.chars().all(|c| c.is_ascii_uppercase() || c == '_')),
            "{}",
            p.name
        );
    }
    let ollama = find_profile("ollama").unwrap().profile;
    assert!(ollama.text_formats.iter().any(|f| f == "hermes"));
    assert!(ollama.has_quirk("args-as-objects"));
}

#[test]
fn wire_names_round_trip() {
    for wire in Wire::ALL {
        assert_eq!(wire.as_str().parse::<Wire>().unwrap(), wire);
        assert_eq!(wire.adapter().wire(), wire);
    }
}

#[test]
fn docs_list_every_profile_name_and_quirk() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/providers.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    for p in profiles() {
        assert!(
            doc.contains(&format!("### {} (`{}`)", p.display_name, p.name)),
            "{} missing from docs/providers.md",
            p.name
        );
        for name in p.aliases.iter().chain(p.wire_aliases.keys()) {
            assert!(doc.contains(&format!("`{name}`")), "alias {name} missing");
        }
        for q in &p.quirks {
            assert!(
                doc.contains(&format!("`{}`: {}.", q.id, q.note)),
                "quirk {} of {} missing or stale",
                q.id,
                p.name
            );
        }
        for f in &p.text_formats {
            assert!(doc.contains(&format!("`{f}`")), "format {f} missing");
        }
        if let Some(grammar) = &p.grammar {
            assert!(
                doc.contains(&format!("* Grammars: `{grammar}`")),
                "the grammar server of {} missing",
                p.name
            );
        }
    }
}
