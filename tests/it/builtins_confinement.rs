//! The file tools stay inside the workspace while another
//! thread swaps symbolic links under them, and never write through a hard link
//! to a file outside. Bounded by iterations, not time.
#![cfg(unix)]
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use serde_json::{Value, json};
use toolrouter::{BuiltinsConfig, JsonObject, ToolContext, ToolRegistry, register_builtins};

/// Rounds of reads and writes raced against the link swaps.
const ROUNDS: usize = 500;
/// The most link swaps the swapping thread makes, should the rounds outlast it.
const MAX_SWAPS: usize = 2_000_000;

/// Calls a built-in; `Ok(text)` or `Err(message)`.
async fn call(registry: &ToolRegistry, name: &str, arguments: Value) -> Result<String, String> {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    let arguments: JsonObject = arguments;
    let tool = registry.get(name).unwrap();
    let handler = tool.handler().unwrap().clone();
    match handler
        .call(arguments, ToolContext::new("race", name))
        .await
    {
        Ok(result) => Ok(result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n")),
        Err(e) => Err(e.message().to_owned()),
    }
}

/// The names in a directory and each file's content and modification time.
fn snapshot(dir: &Path) -> BTreeSet<(String, String, SystemTime)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let path = entry.path();
            let metadata = std::fs::symlink_metadata(&path).unwrap();
            let content = std::fs::read_to_string(&path).unwrap_or_default();
            (
                entry.file_name().to_string_lossy().into_owned(),
                content,
                metadata.modified().unwrap(),
            )
        })
        .collect()
}

/// Makes `path` a symbolic link to `target`: a new link renamed over
/// whatever non-directory is there. Errors are ignored: the tools race us.
fn link_over(path: &Path, target: &Path) {
    let fresh = path.with_extension("new");
    let _ = std::fs::remove_file(&fresh);
    if symlink(target, &fresh).is_ok() && std::fs::rename(&fresh, path).is_err() {
        let _ = std::fs::remove_file(&fresh);
    }
}

/// One swap of each kind: `file` from a regular file to a link out and back,
/// `sub` from a real directory to a link out and back, `link` from a link
/// inside to a link out. `out_file` and `out_dir` name places outside.
fn swap_round(root: &Path, out_file: &Path, out_dir: &Path) {
    let (file, file_aside) = (root.join("file"), root.join("file.aside"));
    let (sub, sub_aside) = (root.join("sub"), root.join("sub.aside"));
    // Out.
    let _ = std::fs::rename(&file, &file_aside);
    link_over(&file, out_file);
    let _ = std::fs::rename(&sub, &sub_aside);
    link_over(&sub, out_dir);
    link_over(&root.join("link"), out_file);
    // Back in. A tool may have created `sub` (a real directory) in the gap.
    let _ = std::fs::rename(&file_aside, &file);
    match std::fs::symlink_metadata(&sub) {
        Ok(m) if m.file_type().is_symlink() => drop(std::fs::remove_file(&sub)),
        Ok(m) if m.is_dir() && sub_aside.exists() => drop(std::fs::remove_dir_all(&sub)),
        _ => {}
    }
    let _ = std::fs::rename(&sub_aside, &sub);
    link_over(&root.join("link"), Path::new("inside.txt"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_swaps_never_reach_outside() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let outside = base.join("outside");
    let root = base.join("ws");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&root).unwrap();

    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let secret = format!("SECRET-{}-{nanos}", std::process::id());
    std::fs::write(outside.join("data.txt"), format!("{secret}\n")).unwrap();
    std::fs::write(outside.join("outside-only.txt"), format!("{secret}\n")).unwrap();
    std::fs::write(outside.join("hard.txt"), "outside, hard-linked\n").unwrap();
    std::fs::write(root.join("inside.txt"), "inside\n").unwrap();
    std::fs::write(root.join("file"), "inside file\n").unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/data.txt"), "inside data\n").unwrap();
    std::fs::hard_link(outside.join("hard.txt"), root.join("hard.txt")).unwrap();
    symlink("inside.txt", root.join("link")).unwrap();
    let before = snapshot(&outside);

    let registry = ToolRegistry::new();
    let mut config = BuiltinsConfig::new(&root);
    config.allow_write = true;
    register_builtins(&registry, &config).unwrap();

    // The swapper: links out by a relative path and by an absolute one.
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let root = root.clone();
        let outside = outside.clone();
        std::thread::spawn(move || {
            let out_files: [PathBuf; 2] = ["../outside/data.txt".into(), outside.join("data.txt")];
            let out_dirs: [PathBuf; 2] = ["../outside".into(), outside.clone()];
            let mut n_swaps = 0;
            while !stop.load(Ordering::Relaxed) && n_swaps < MAX_SWAPS {
                swap_round(&root, &out_files[n_swaps % 2], &out_dirs[n_swaps % 2]);
                n_swaps += 1;
            }
            n_swaps
        })
    };

    let mut leaks = Vec::new();
    let mut n_ok = 0usize;
    let mut seen = |what: &str, result: Result<String, String>, leaks: &mut Vec<String>| {
        let text = match result {
            Ok(text) => {
                n_ok += 1;
                text
            }
            Err(message) => message,
        };
        if text.contains(&secret) || text.contains("outside-only") {
            leaks.push(format!("{what}: {text}"));
        }
    };
    for round in 0..ROUNDS {
        let r = &registry;
        seen(
            "read link",
            call(r, "read_file", json!({"path": "link"})).await,
            &mut leaks,
        );
        seen(
            "read file",
            call(r, "read_file", json!({"path": "file"})).await,
            &mut leaks,
        );
        seen(
            "read sub/data.txt",
            call(r, "read_file", json!({"path": "sub/data.txt"})).await,
            &mut leaks,
        );
        let content = format!("written in round {round}\n");
        for path in ["file", "link", "sub/data.txt", "hard.txt", "sub/new.txt"] {
            let outcome = call(
                r,
                "write_to_file",
                json!({"path": path, "content": content}),
            )
            .await;
            seen("write", outcome, &mut leaks);
        }
        if round % 10 == 0 {
            seen(
                "search",
                call(r, "search_files", json!({"regex": "SECRET"})).await,
                &mut leaks,
            );
            seen(
                "search sub",
                call(r, "search_files", json!({"path": "sub", "regex": "."})).await,
                &mut leaks,
            );
            seen(
                "list sub",
                call(r, "list_files", json!({"path": "sub", "recursive": true})).await,
                &mut leaks,
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let n_swaps = swapper.join().unwrap();

    assert!(
        leaks.is_empty(),
        "{} results showed what is outside the workspace ({n_swaps} swaps), first: {:?}",
        leaks.len(),
        leaks.first()
    );
    assert_eq!(
        snapshot(&outside),
        before,
        "something outside the workspace changed ({n_swaps} swaps)"
    );
    // The race did not stop the tools from working inside.
    assert!(n_ok > 0);
    assert!(n_swaps > 0);
}

/// A workspace `ws/` beside a directory `outside/`, with the tools registered
/// with writes allowed.
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (outside, root) = (base.join("outside"), base.join("ws"));
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&root).unwrap();
    let registry = ToolRegistry::new();
    let mut config = BuiltinsConfig::new(&root);
    config.allow_write = true;
    register_builtins(&registry, &config).unwrap();
    (dir, outside, root, registry)
}

#[tokio::test]
async fn a_hard_link_to_an_outside_file_is_replaced_not_written_through() {
    let (_dir, outside, root, registry) = workspace();
    std::fs::write(outside.join("target.txt"), "outside\n").unwrap();
    std::fs::hard_link(outside.join("target.txt"), root.join("linked.txt")).unwrap();
    let written = call(
        &registry,
        "write_to_file",
        json!({"path": "linked.txt", "content": "inside\n"}),
    )
    .await;
    assert_eq!(written.unwrap(), "overwrote `linked.txt` (7 bytes)");
    assert_eq!(
        std::fs::read_to_string(outside.join("target.txt")).unwrap(),
        "outside\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("linked.txt")).unwrap(),
        "inside\n"
    );
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["linked.txt"]);
}

#[tokio::test]
async fn overwriting_keeps_the_permission_bits() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, _outside, root, registry) = workspace();
    let script = root.join("run.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    call(
        &registry,
        "write_to_file",
        json!({"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}),
    )
    .await
    .unwrap();
    let mode = std::fs::metadata(&script).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o750);
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\necho hi\n"
    );
    // A read-only file is not replaced, as writing in place would fail.
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o444)).unwrap();
    let refused = call(
        &registry,
        "write_to_file",
        json!({"path": "run.sh", "content": "x"}),
    )
    .await;
    assert_eq!(
        refused.unwrap_err(),
        "cannot write `run.sh`: the file is read-only"
    );
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\necho hi\n"
    );
}
