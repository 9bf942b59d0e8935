//! The built-in tools through the registry, as an executor calls them: the
//! calculator, each file tool, and every way out of the workspace refused.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolrouter::{
    BuiltinsConfig, BuiltinsError, JsonObject, RegistryError, ToolContext, ToolRegistry,
    register_builtins,
};

/// A workspace `ws/` inside a temporary directory that also holds a file the
/// tools must never reach (`secret.txt`), and links from the workspace to it.
struct Fixture {
    _dir: tempfile::TempDir,
    outside: PathBuf,
    root: PathBuf,
    registry: ToolRegistry,
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn fixture_with(configure: impl FnOnce(&mut BuiltinsConfig)) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().canonicalize().unwrap();
    let root = outside.join("ws");
    write(&outside.join("secret.txt"), "top secret\n");
    write(&root.join("a.txt"), "alpha\nbeta\ngamma\n");
    write(
        &root.join("src/main.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n",
    );
    write(
        &root.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    write(
        &root.join("notes/todo.md"),
        "- [ ] write tests\n- [x] fn names\n",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(&outside, root.join("escape")).unwrap();
        symlink(outside.join("secret.txt"), root.join("leak.txt")).unwrap();
        symlink(outside.join("nowhere.txt"), root.join("dangling")).unwrap();
    }
    let registry = ToolRegistry::new();
    let mut config = BuiltinsConfig::new(&root);
    config.allow_write = true;
    configure(&mut config);
    register_builtins(&registry, &config).unwrap();
    Fixture {
        _dir: dir,
        outside,
        root,
        registry,
    }
}

fn fixture() -> Fixture {
    fixture_with(|_| {})
}

fn args(v: Value) -> JsonObject {
    match v {
        Value::Object(map) => map,
        _ => panic!("arguments must be an object"),
    }
}

/// Calls a tool's handler; `Ok(text)` or `Err(message)`.
async fn call(registry: &ToolRegistry, name: &str, arguments: Value) -> Result<String, String> {
    let tool = registry.get(name).expect("tool registered");
    let handler = tool.handler().expect("tool has a handler").clone();
    match handler
        .call(args(arguments), ToolContext::new("call-1", name))
        .await
    {
        Ok(result) => {
            assert_ne!(result.is_error, Some(true));
            let texts: Vec<String> = result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect();
            assert_eq!(texts.len(), 1, "one text block");
            Ok(texts.into_iter().next().unwrap())
        }
        Err(e) => Err(e.message().to_owned()),
    }
}

async fn call_ok(registry: &ToolRegistry, name: &str, arguments: Value) -> String {
    call(registry, name, arguments.clone())
        .await
        .unwrap_or_else(|e| panic!("{name} {arguments}: {e}"))
}

async fn call_err(registry: &ToolRegistry, name: &str, arguments: Value) -> String {
    match call(registry, name, arguments.clone()).await {
        Ok(text) => panic!("{name} {arguments}: expected an error, got {text:?}"),
        Err(e) => e,
    }
}

// ---- registration ---------------------------------------------------------

#[tokio::test]
async fn registers_five_tools_with_annotations_and_schemas() {
    let fx = fixture();
    let names: Vec<String> = fx
        .registry
        .list()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "calculate",
            "list_files",
            "read_file",
            "search_files",
            "write_to_file"
        ]
    );
    let calculate = fx.registry.get("calculate").unwrap();
    let def = calculate.definition();
    assert_eq!(def.title.as_deref(), Some("Calculator"));
    let ann = def.annotations.as_ref().unwrap();
    assert_eq!(ann.read_only_hint, Some(true));
    assert_eq!(ann.open_world_hint, Some(false));
    assert_eq!(
        def.input_schema.get("required"),
        Some(&json!(["expression"]))
    );
    assert_eq!(
        def.input_schema.get("additionalProperties"),
        Some(&json!(false))
    );
    assert!(def.output_schema.is_some());

    let write = fx.registry.get("write_to_file").unwrap();
    let ann = write.definition().annotations.clone().unwrap();
    assert_eq!(ann.read_only_hint, Some(false));
    assert_eq!(ann.destructive_hint, Some(true));
    assert_eq!(ann.idempotent_hint, Some(true));
    let required = write.definition().input_schema.get("required").unwrap();
    assert_eq!(required, &json!(["path", "content"]));

    for name in ["read_file", "list_files", "search_files"] {
        let tool = fx.registry.get(name).unwrap();
        let ann = tool.definition().annotations.clone().unwrap();
        assert_eq!(ann.read_only_hint, Some(true), "{name}");
    }
    // The input schemas accept what the tools document and refuse the rest.
    let read = fx.registry.get("read_file").unwrap();
    assert!(
        read.validator()
            .validate(args(json!({"path": "a.txt", "start_line": 2})))
            .1
            .is_ok()
    );
    assert!(
        read.validator()
            .validate(args(json!({"path": "a.txt", "start_line": 0})))
            .1
            .is_err()
    );
    assert!(
        read.validator()
            .validate(args(json!({"file": "a.txt"})))
            .1
            .is_err()
    );
}

#[tokio::test]
async fn registration_refuses_taken_names_and_bad_roots() {
    let fx = fixture();
    let n_before = fx.registry.len();
    let err = register_builtins(&fx.registry, &BuiltinsConfig::new(&fx.root)).unwrap_err();
    assert!(matches!(
        err,
        BuiltinsError::Registry(RegistryError::Duplicate(ref name)) if name == "calculate"
    ));
    assert_eq!(fx.registry.len(), n_before);

    let registry = ToolRegistry::new();
    let err =
        register_builtins(&registry, &BuiltinsConfig::new(fx.root.join("missing"))).unwrap_err();
    assert!(matches!(err, BuiltinsError::Workspace { .. }), "{err}");
    let err =
        register_builtins(&registry, &BuiltinsConfig::new(fx.root.join("a.txt"))).unwrap_err();
    assert!(matches!(err, BuiltinsError::Workspace { .. }), "{err}");
    assert!(registry.is_empty());
}

#[tokio::test]
async fn writes_are_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    let names = register_builtins(&registry, &BuiltinsConfig::new(dir.path())).unwrap();
    assert_eq!(
        names,
        ["calculate", "read_file", "list_files", "search_files"]
    );
    assert!(!registry.contains("write_to_file"));
}

#[tokio::test]
async fn read_only_configuration_has_no_write_tool() {
    let fx = fixture_with(|c| c.allow_write = false);
    assert!(!fx.registry.contains("write_to_file"));
    assert_eq!(fx.registry.len(), 4);
}

// ---- calculate ------------------------------------------------------------

#[tokio::test]
async fn calculate_returns_the_number_plainly() {
    let fx = fixture();
    let tool = fx.registry.get("calculate").unwrap();
    let handler = tool.handler().unwrap();
    let result = handler
        .call(
            args(json!({"expression": "(12+5)*3"})),
            ToolContext::new("c", "calculate"),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "51");
    assert_eq!(result.structured_content, Some(json!({"result": 51})));

    let result = handler
        .call(
            args(json!({"expression": "7/2"})),
            ToolContext::new("c", "calculate"),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "3.5");
    assert_eq!(result.structured_content, Some(json!({"result": 3.5})));

    assert_eq!(
        call_ok(
            &fx.registry,
            "calculate",
            json!({"expression": "2 + 3 * 4 ^ 2"})
        )
        .await,
        "50"
    );
}

#[tokio::test]
async fn calculate_errors_are_clear() {
    let fx = fixture();
    assert_eq!(
        call_err(
            &fx.registry,
            "calculate",
            json!({"expression": "10 / (5 - 5)"})
        )
        .await,
        "division by zero at position 4"
    );
    assert_eq!(
        call_err(&fx.registry, "calculate", json!({"expression": "2 +* 3"})).await,
        "syntax error at position 4: expected a number, `(` or a function name, found `*`"
    );
    let missing = call_err(&fx.registry, "calculate", json!({})).await;
    assert!(missing.starts_with("invalid arguments"), "{missing}");
    assert!(missing.contains("expression"), "{missing}");
}

// ---- read_file ------------------------------------------------------------

#[tokio::test]
async fn read_file_whole_and_by_lines() {
    let fx = fixture();
    let r = &fx.registry;
    assert_eq!(
        call_ok(r, "read_file", json!({"path": "a.txt"})).await,
        "alpha\nbeta\ngamma\n"
    );
    assert_eq!(
        call_ok(
            r,
            "read_file",
            json!({"path": "a.txt", "start_line": 2, "end_line": 3})
        )
        .await,
        "beta\ngamma\n"
    );
    assert_eq!(
        call_ok(r, "read_file", json!({"path": "a.txt", "start_line": 2})).await,
        "beta\ngamma\n"
    );
    assert_eq!(
        call_ok(r, "read_file", json!({"path": "a.txt", "end_line": 1})).await,
        "alpha\n"
    );
    assert_eq!(
        call_ok(
            r,
            "read_file",
            json!({"path": "./src/../a.txt", "start_line": 3, "end_line": 9})
        )
        .await,
        "gamma\n"
    );
    let absolute = fx.root.join("src/lib.rs");
    assert_eq!(
        call_ok(r, "read_file", json!({"path": absolute, "end_line": 1})).await,
        "pub fn add(a: i32, b: i32) -> i32 {\n"
    );
    assert_eq!(
        call_err(r, "read_file", json!({"path": "a.txt", "start_line": 5})).await,
        "start_line 5 is past the end of `a.txt`, which has 3 lines"
    );
    assert_eq!(
        call_err(
            r,
            "read_file",
            json!({"path": "a.txt", "start_line": 3, "end_line": 2})
        )
        .await,
        "end_line 2 is before start_line 3"
    );
    assert_eq!(
        call_err(r, "read_file", json!({"path": "missing.txt"})).await,
        "`missing.txt` does not exist"
    );
    assert_eq!(
        call_err(r, "read_file", json!({"path": "src"})).await,
        "`src` is a directory, not a file; use list_files to see what it contains"
    );
}

#[tokio::test]
async fn read_file_enforces_the_size_limit_and_text() {
    let fx = fixture_with(|c| c.max_read_bytes = 8);
    let r = &fx.registry;
    // a.txt is "alpha\nbeta\ngamma\n": 6 + 5 + 6 = 17 bytes.
    assert_eq!(
        call_err(r, "read_file", json!({"path": "a.txt"})).await,
        "`a.txt` is 17 bytes, more than the 8-byte read limit; read part of it with start_line and end_line"
    );
    assert_eq!(
        call_ok(
            r,
            "read_file",
            json!({"path": "a.txt", "start_line": 1, "end_line": 1})
        )
        .await,
        "alpha\n"
    );
    let too_many = call_err(r, "read_file", json!({"path": "a.txt", "end_line": 2})).await;
    assert!(
        too_many.contains("exceed the 8-byte read limit"),
        "{too_many}"
    );

    std::fs::write(fx.root.join("blob.bin"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
    let binary = call_err(r, "read_file", json!({"path": "blob.bin"})).await;
    assert!(binary.contains("is not UTF-8 text"), "{binary}");
}

// ---- write_to_file --------------------------------------------------------

#[tokio::test]
async fn write_to_file_creates_parents_and_overwrites() {
    let fx = fixture();
    let r = &fx.registry;
    assert_eq!(
        call_ok(
            r,
            "write_to_file",
            json!({"path": "out/deep/new.txt", "content": "hello"})
        )
        .await,
        "created `out/deep/new.txt` (5 bytes)"
    );
    assert_eq!(
        std::fs::read_to_string(fx.root.join("out/deep/new.txt")).unwrap(),
        "hello"
    );
    assert_eq!(
        call_ok(
            r,
            "write_to_file",
            json!({"path": "a.txt", "content": "één\n"})
        )
        .await,
        // "één\n" is 3 + 1 + 2 bytes... é is 2 bytes: 2 + 2 + 1 + 1 = 6.
        "overwrote `a.txt` (6 bytes)"
    );
    assert_eq!(
        call_ok(r, "read_file", json!({"path": "a.txt"})).await,
        "één\n"
    );
    assert_eq!(
        call_err(r, "write_to_file", json!({"path": "src", "content": "x"})).await,
        "`src` is a directory; give the path of a file"
    );
}

#[tokio::test]
async fn write_to_file_enforces_the_size_limit() {
    let fx = fixture_with(|c| c.max_write_bytes = 4);
    assert_eq!(
        call_err(
            &fx.registry,
            "write_to_file",
            json!({"path": "x.txt", "content": "12345"})
        )
        .await,
        "content is 5 bytes, more than the 4-byte write limit"
    );
    assert!(!fx.root.join("x.txt").exists());
}

// ---- list_files -----------------------------------------------------------

#[tokio::test]
async fn list_files_flat_recursive_and_bounded() {
    let fx = fixture();
    let r = &fx.registry;
    assert_eq!(
        call_ok(r, "list_files", json!({})).await,
        "a.txt\ndangling\nescape\nleak.txt\nnotes/\nsrc/"
    );
    assert_eq!(
        call_ok(r, "list_files", json!({"path": "src", "recursive": true})).await,
        "src/lib.rs\nsrc/main.rs"
    );
    // Links are listed, not followed: nothing under `escape` appears.
    assert_eq!(
        call_ok(r, "list_files", json!({"path": ".", "recursive": true})).await,
        "a.txt\ndangling\nescape\nleak.txt\nnotes/\nnotes/todo.md\nsrc/\nsrc/lib.rs\nsrc/main.rs"
    );
    assert_eq!(
        call_ok(r, "list_files", json!({"max_entries": 2})).await,
        "a.txt\ndangling\n[listing stopped after 2 entries; list a subdirectory or raise max_entries]"
    );
    std::fs::create_dir(fx.root.join("empty")).unwrap();
    assert_eq!(
        call_ok(r, "list_files", json!({"path": "empty"})).await,
        "`empty` is empty"
    );
    assert_eq!(
        call_err(r, "list_files", json!({"path": "a.txt"})).await,
        "`a.txt` is a file, not a directory; use read_file to read it"
    );
}

#[tokio::test]
async fn list_files_respects_the_configured_cap() {
    let fx = fixture_with(|c| c.max_list_entries = 1);
    assert_eq!(
        call_ok(&fx.registry, "list_files", json!({"max_entries": 50})).await,
        "a.txt\n[listing stopped after 1 entries; list a subdirectory or raise max_entries]"
    );
}

// ---- search_files ---------------------------------------------------------

#[tokio::test]
async fn search_files_finds_lines() {
    let fx = fixture();
    let r = &fx.registry;
    assert_eq!(
        call_ok(r, "search_files", json!({"regex": r"fn \w+"})).await,
        "notes/todo.md:2: - [x] fn names\n\
         src/lib.rs:1: pub fn add(a: i32, b: i32) -> i32 {\n\
         src/main.rs:1: fn main() {"
    );
    assert_eq!(
        call_ok(
            r,
            "search_files",
            json!({"regex": r"fn \w+", "file_pattern": "*.rs"})
        )
        .await,
        "src/lib.rs:1: pub fn add(a: i32, b: i32) -> i32 {\nsrc/main.rs:1: fn main() {"
    );
    assert_eq!(
        call_ok(
            r,
            "search_files",
            json!({"path": "src", "regex": "^fn", "file_pattern": "src/**/*.rs"})
        )
        .await,
        "src/main.rs:1: fn main() {"
    );
    assert_eq!(
        call_ok(
            r,
            "search_files",
            json!({"regex": "ALPHA", "ignore_case": true})
        )
        .await,
        "a.txt:1: alpha"
    );
    assert_eq!(
        call_ok(r, "search_files", json!({"path": "a.txt", "regex": "a$"})).await,
        "a.txt:1: alpha\na.txt:2: beta\na.txt:3: gamma"
    );
    assert_eq!(
        call_ok(r, "search_files", json!({"regex": "a", "max_results": 1})).await,
        "a.txt:1: alpha\n[search stopped after 1 matches; narrow the path, regex or file_pattern]"
    );
    // leak.txt links to secret.txt outside: links are not followed.
    assert_eq!(
        call_ok(r, "search_files", json!({"regex": "secret"})).await,
        "no matches for `secret` in `.`"
    );
    let bad = call_err(r, "search_files", json!({"regex": "(unclosed"})).await;
    assert!(bad.starts_with("invalid regex:"), "{bad}");
    let bad = call_err(
        r,
        "search_files",
        json!({"regex": "x", "file_pattern": "*.{rs"}),
    )
    .await;
    assert_eq!(bad, "invalid file_pattern `*.{rs`: unclosed `{`");
}

#[tokio::test]
async fn search_files_skips_large_files() {
    let fx = fixture_with(|c| c.max_search_file_bytes = 20);
    // a.txt (17 bytes) is searched; notes/todo.md (18 + 15 = 33 bytes),
    // src/lib.rs (36 + 10 + 2 = 48) and src/main.rs (12 + 20 + 2 = 34) are not.
    assert_eq!(
        call_ok(&fx.registry, "search_files", json!({"regex": "a"})).await,
        "a.txt:1: alpha\na.txt:2: beta\na.txt:3: gamma\n\
         [skipped 3 files larger than 20 bytes]"
    );
}

// ---- confinement ----------------------------------------------------------

#[tokio::test]
async fn traversal_out_of_the_root_is_refused() {
    let fx = fixture();
    let r = &fx.registry;
    let root = fx.root.display().to_string();
    let expect = |path: &str| format!("path `{path}` is outside the workspace root `{root}`");
    for path in [
        "../secret.txt",
        "src/../../secret.txt",
        "notes/../../ws/../secret.txt",
    ] {
        assert_eq!(
            call_err(r, "read_file", json!({ "path": path })).await,
            expect(path)
        );
    }
    assert_eq!(
        call_err(
            r,
            "write_to_file",
            json!({"path": "../evil.txt", "content": "x"})
        )
        .await,
        expect("../evil.txt")
    );
    assert!(!fx.outside.join("evil.txt").exists());
    assert_eq!(
        call_err(r, "list_files", json!({"path": ".."})).await,
        expect("..")
    );
    assert_eq!(
        call_err(r, "search_files", json!({"path": "../", "regex": "secret"})).await,
        expect("../")
    );
    // `..` that comes back inside is fine.
    assert_eq!(
        call_ok(
            r,
            "read_file",
            json!({"path": "../ws/a.txt", "end_line": 1})
        )
        .await,
        "alpha\n"
    );
}

#[tokio::test]
async fn absolute_paths_outside_are_refused() {
    let fx = fixture();
    let r = &fx.registry;
    let root = fx.root.display().to_string();
    let secret = fx.outside.join("secret.txt").display().to_string();
    assert_eq!(
        call_err(r, "read_file", json!({ "path": secret })).await,
        format!("path `{secret}` is outside the workspace root `{root}`")
    );
    assert_eq!(
        call_err(r, "read_file", json!({"path": "/etc/passwd"})).await,
        format!("path `/etc/passwd` is outside the workspace root `{root}`")
    );
    let evil = fx.outside.join("new/evil.txt").display().to_string();
    assert_eq!(
        call_err(r, "write_to_file", json!({"path": evil, "content": "x"})).await,
        format!("path `{evil}` is outside the workspace root `{root}`")
    );
    assert!(!fx.outside.join("new").exists());
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_out_of_the_root_are_refused() {
    let fx = fixture();
    let r = &fx.registry;
    let root = fx.root.display().to_string();
    let escapes = |path: &str| {
        format!("path `{path}` escapes the workspace root `{root}` through a symbolic link")
    };
    assert_eq!(
        call_err(r, "read_file", json!({"path": "leak.txt"})).await,
        escapes("leak.txt")
    );
    assert_eq!(
        call_err(r, "read_file", json!({"path": "escape/secret.txt"})).await,
        escapes("escape/secret.txt")
    );
    // A new file below a link that leads out.
    assert_eq!(
        call_err(
            r,
            "write_to_file",
            json!({"path": "escape/sub/evil.txt", "content": "x"})
        )
        .await,
        escapes("escape/sub/evil.txt")
    );
    assert!(!fx.outside.join("sub").exists());
    assert_eq!(
        call_err(
            r,
            "write_to_file",
            json!({"path": "leak.txt", "content": "overwritten"})
        )
        .await,
        escapes("leak.txt")
    );
    assert_eq!(
        std::fs::read_to_string(fx.outside.join("secret.txt")).unwrap(),
        "top secret\n"
    );
    // A dangling link out would create its target wherever it points.
    assert_eq!(
        call_err(
            r,
            "write_to_file",
            json!({"path": "dangling", "content": "x"})
        )
        .await,
        escapes("dangling")
    );
    assert!(!fx.outside.join("nowhere.txt").exists());
    assert_eq!(
        call_err(r, "list_files", json!({"path": "escape"})).await,
        escapes("escape")
    );
    assert_eq!(
        call_err(
            r,
            "search_files",
            json!({"path": "escape", "regex": "secret"})
        )
        .await,
        escapes("escape")
    );
    // A relative link that leaves the root, even to come back, is refused.
    std::os::unix::fs::symlink("../ws/a.txt", fx.root.join("round-trip")).unwrap();
    assert_eq!(
        call_err(r, "read_file", json!({"path": "round-trip"})).await,
        escapes("round-trip")
    );
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_inside_the_root_are_followed_when_relative() {
    let fx = fixture();
    let r = &fx.registry;
    std::os::unix::fs::symlink("src", fx.root.join("code")).unwrap();
    std::os::unix::fs::symlink("../a.txt", fx.root.join("notes/a-link")).unwrap();
    assert_eq!(
        call_ok(
            r,
            "read_file",
            json!({"path": "code/main.rs", "end_line": 1})
        )
        .await,
        "fn main() {\n"
    );
    assert_eq!(
        call_ok(
            r,
            "read_file",
            json!({"path": "notes/a-link", "end_line": 1})
        )
        .await,
        "alpha\n"
    );
    // Writing through a link inside replaces the file it names; the link stays.
    assert_eq!(
        call_ok(
            r,
            "write_to_file",
            json!({"path": "notes/a-link", "content": "new\n"})
        )
        .await,
        "overwrote `notes/a-link` (4 bytes)"
    );
    assert_eq!(
        std::fs::read_to_string(fx.root.join("a.txt")).unwrap(),
        "new\n"
    );
    assert!(
        std::fs::symlink_metadata(fx.root.join("notes/a-link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // An absolute target is refused, even one that names a place inside.
    std::os::unix::fs::symlink(fx.root.join("src"), fx.root.join("abs")).unwrap();
    let err = call_err(r, "read_file", json!({"path": "abs/main.rs"})).await;
    assert!(err.contains("escapes the workspace root"), "{err}");
}

#[tokio::test]
async fn a_workspace_given_through_a_link_or_dots_still_confines() {
    let fx = fixture();
    // Registering with a non-canonical root: `ws/src/..`.
    let registry = ToolRegistry::new();
    register_builtins(&registry, &BuiltinsConfig::new(fx.root.join("src/.."))).unwrap();
    assert_eq!(
        call_ok(
            &registry,
            "read_file",
            json!({"path": "a.txt", "end_line": 1})
        )
        .await,
        "alpha\n"
    );
    let err = call_err(&registry, "read_file", json!({"path": "../secret.txt"})).await;
    assert!(err.contains("is outside the workspace root"), "{err}");
}

#[tokio::test]
async fn input_schemas_are_plain_object_schemas() {
    let fx = fixture();
    let read = fx.registry.get("read_file").unwrap();
    let schema = &read.definition().input_schema;
    assert_eq!(schema.get("type"), Some(&json!("object")));
    assert_eq!(schema.get("required"), Some(&json!(["path"])));
    assert!(schema.get("title").is_none());
    let props = schema.get("properties").unwrap().as_object().unwrap();
    let keys: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(keys, ["path", "start_line", "end_line"]);
    assert_eq!(props["start_line"]["minimum"], json!(1));
}

#[tokio::test]
async fn git_directories_are_listed_but_not_walked() {
    let fx = fixture();
    write(&fx.root.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(&fx.root.join(".git/objects/ab/cdef"), "fn hidden() {}\n");
    let listing = call_ok(&fx.registry, "list_files", json!({"recursive": true})).await;
    assert_eq!(
        listing,
        ".git/\na.txt\ndangling\nescape\nleak.txt\nnotes/\nnotes/todo.md\nsrc/\nsrc/lib.rs\nsrc/main.rs"
    );
    // The same text in .git is not found; in src it is.
    assert_eq!(
        call_ok(
            &fx.registry,
            "search_files",
            json!({"regex": r"fn \w+\(\)"})
        )
        .await,
        "src/main.rs:1: fn main() {"
    );
    // Listing .git itself is allowed: it is inside the workspace.
    assert_eq!(
        call_ok(&fx.registry, "list_files", json!({"path": ".git"})).await,
        ".git/HEAD\n.git/objects/"
    );
}

#[tokio::test]
async fn a_cancelled_call_stops_walking() {
    let fx = fixture();
    let cases = [
        ("list_files", json!({"recursive": true})),
        ("search_files", json!({"regex": "a"})),
    ];
    for (name, arguments) in cases {
        let ctx = ToolContext::new("c", name);
        ctx.cancellation().cancel();
        let tool = fx.registry.get(name).unwrap();
        let err = tool
            .handler()
            .unwrap()
            .call(args(arguments), ctx)
            .await
            .unwrap_err();
        assert_eq!(err.message(), "cancelled", "{name}");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn special_files_are_refused_rather_than_blocking() {
    let fx = fixture();
    let fifo = fx.root.join("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        call_err(&fx.registry, "read_file", json!({"path": "pipe"})).await,
        "`pipe` is not a regular file"
    );
    assert_eq!(
        call_err(
            &fx.registry,
            "write_to_file",
            json!({"path": "pipe", "content": "x"})
        )
        .await,
        "`pipe` is not a regular file"
    );
    // search_files skips it instead of opening it.
    assert_eq!(
        call_ok(&fx.registry, "search_files", json!({"regex": "gamma"})).await,
        "a.txt:3: gamma"
    );
}

/// The text of a result's single text block.
fn result_text(result: &rmcp::model::CallToolResult) -> String {
    assert_eq!(result.content.len(), 1);
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test]
async fn through_the_executor_schemas_and_errors_hold() {
    use std::sync::Arc;
    use toolrouter::{Executor, ExecutorConfig, ToolCall, WireFormat};

    let fx = fixture();
    let registry = Arc::new(fx.registry);
    let executor = Executor::new(registry, ExecutorConfig::default());
    let run = |name: &str, arguments: Value| {
        ToolCall::new(
            "call-1",
            name,
            Some(args(arguments)),
            WireFormat::OpenAiChat,
        )
    };

    let ok = executor
        .execute(&run("calculate", json!({"expression": "(12+5)*3"})))
        .await;
    assert_ne!(ok.is_error, Some(true));
    assert_eq!(result_text(&ok), "51");
    assert_eq!(ok.structured_content, Some(json!({"result": 51})));

    let div = executor
        .execute(&run("calculate", json!({"expression": "1/0"})))
        .await;
    assert_eq!(div.is_error, Some(true));
    assert_eq!(result_text(&div), "division by zero at position 2");

    // The input schemas do the first line of checking: line numbers start at 1,
    // and no argument outside the schema gets through.
    for bad in [
        json!({"path": "a.txt", "start_line": 0}),
        json!({"path": "a.txt", "lines": "1-2"}),
        json!({}),
    ] {
        let result = executor.execute(&run("read_file", bad.clone())).await;
        assert_eq!(result.is_error, Some(true), "{bad}");
        let text = result_text(&result);
        assert!(
            text.starts_with("invalid arguments for tool `read_file`"),
            "{text}"
        );
    }

    let escape = executor
        .execute(&run("read_file", json!({"path": "../secret.txt"})))
        .await;
    assert_eq!(escape.is_error, Some(true));
    assert!(result_text(&escape).contains("is outside the workspace root"));
}
