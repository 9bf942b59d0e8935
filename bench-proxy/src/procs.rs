//! The proxies under test, each in a process of its own: `toolrouter proxy`
//! (the release binary) and, on request, LiteLLM's proxy.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::{Child, Command};

use crate::client::{Conn, request};
use crate::upstream::Workload;

/// A proxy process, killed when dropped.
pub struct Proxy {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Proxy {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id().unwrap_or(0)
    }

    /// Its resident memory (`VmRSS`), in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()));
        status
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0)
    }

    /// CPU time it has used (user + system), in seconds.
    pub fn cpu_secs(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap_or_default();
        // Fields after the command's closing parenthesis; utime and stime are 14 and 15.
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let f: Vec<&str> = rest.split_whitespace().collect();
        let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        // Linux reports them in USER_HZ, 100 per second everywhere it runs.
        (ticks(11) + ticks(12)) / 100.0
    }

    /// Stops it.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// Starts `toolrouter proxy` in front of `upstream` on a free port; its first
/// stderr line names the URL it listens at.
pub async fn toolrouter(bin: &Path, upstream: &str) -> Result<Proxy, String> {
    let mut child = Command::new(bin)
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream])
        .args(["--provider", "vllm"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .map_err(|_| "toolrouter proxy said nothing in 10 s")?
        .map_err(|e| e.to_string())?
        .ok_or("toolrouter proxy exited")?;
    // "toolrouter: proxying at http://127.0.0.1:PORT/v1 -> UPSTREAM"
    let addr = line
        .strip_prefix("toolrouter: proxying at http://")
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("unexpected first line: {line}"))?;
    // Later lines (warnings) go to our stderr.
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("[toolrouter] {line}");
        }
    });
    Ok(Proxy { child, addr })
}

/// Where `name` is on `PATH`, if it is.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Starts LiteLLM's proxy (`litellm --config`) as an OpenAI-compatible
/// passthrough to `upstream`, one worker, and waits until it streams.
pub async fn litellm(bin: &Path, upstream: &str) -> Result<Proxy, String> {
    let dir = std::env::temp_dir().join(format!("bench-proxy-litellm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut config = String::from("model_list:\n");
    for w in [Workload::Text, Workload::Tool, Workload::Hold] {
        let m = w.model();
        config.push_str(&format!(
            "  - model_name: {m}\n    litellm_params:\n      model: openai/{m}\n      api_base: {upstream}\n      api_key: unused\n"
        ));
    }
    let config_path = dir.join("config.yaml");
    std::fs::write(&config_path, config).map_err(|e| e.to_string())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let log = std::fs::File::create(dir.join("litellm.log")).map_err(|e| e.to_string())?;
    let log2 = log.try_clone().map_err(|e| e.to_string())?;
    let child = Command::new(bin)
        .arg("--config")
        .arg(&config_path)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["--num_workers", "1"])
        // No network look-ups at start, no telemetry.
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("LITELLM_TELEMETRY", "False")
        // It refuses to start without one; the client sends it (`client::KEY`).
        .env("LITELLM_MASTER_KEY", crate::client::KEY)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let mut proxy = Proxy {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    };
    let req = request(proxy.addr, Workload::Text);
    let started = Instant::now();
    let mut last = String::new();
    while started.elapsed() < Duration::from_secs(180) {
        if let Ok(Some(status)) = proxy.child.try_wait() {
            return Err(format!(
                "litellm exited ({status}); see {}",
                dir.join("litellm.log").display()
            ));
        }
        match Conn::open(proxy.addr).await {
            Ok(mut conn) => match conn.stream(&req, None).await {
                Ok(_) => return Ok(proxy),
                Err(e) => last = e,
            },
            Err(e) => last = e,
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let _ = proxy.child.kill().await;
    Err(format!(
        "litellm did not stream within 180 s ({last}); see {}",
        dir.join("litellm.log").display()
    ))
}

/// The two floors, each this bench's own binary in a process of its own in
/// front of the upstream, as the proxy is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Floor {
    /// `--relay ADDR`: every client connection gets an upstream connection
    /// and the bytes are copied both ways, with no HTTP parsing: what the
    /// extra hop alone costs on this machine.
    Tcp,
    /// `--relay-http ADDR`: hyper's HTTP/1 server in front of hyper's HTTP/1
    /// client, each request passed on and its answer's body streamed back
    /// untouched: what reading and writing HTTP on both sides costs, the
    /// least an HTTP proxy built on hyper does.
    Http,
}

/// Starts a floor in front of `upstream`.
pub async fn relay(upstream: SocketAddr, floor: Floor) -> Result<Proxy, String> {
    let bin = std::env::current_exe().map_err(|e| e.to_string())?;
    let flag = match floor {
        Floor::Tcp => "--relay",
        Floor::Http => "--relay-http",
    };
    let mut child = Command::new(&bin)
        .args([flag, &upstream.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .map_err(|_| "the relay said nothing in 10 s")?
        .map_err(|e| e.to_string())?
        .ok_or("the relay exited")?;
    let addr = line
        .trim()
        .parse()
        .map_err(|e| format!("the relay said {line:?}: {e}"))?;
    Ok(Proxy { child, addr })
}

/// The relay's own process (`bench-proxy --relay ADDR`): one thread, prints
/// its address on stdout, copies bytes until killed.
pub fn run_relay(upstream: &str) -> Result<(), String> {
    serve_floor(upstream, |mut client, mut server| async move {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    })
}

/// The HTTP floor's own process (`bench-proxy --relay-http ADDR`): one
/// thread, prints its address on stdout; each client connection gets one
/// upstream connection, its requests are sent on as they came (hyper's
/// client) and each answer's head and body come back as they arrive.
pub fn run_http_relay(upstream: &str) -> Result<(), String> {
    use hyper::body::Incoming;
    use hyper_util::rt::TokioIo;

    serve_floor(upstream, |client, server| async move {
        let Ok((sender, connection)) =
            hyper::client::conn::http1::handshake::<_, Incoming>(TokioIo::new(server)).await
        else {
            return;
        };
        tokio::spawn(connection);
        // One request at a time on a connection: the lock is free again once
        // the answer's head is back.
        let sender = std::sync::Arc::new(tokio::sync::Mutex::new(sender));
        let service = hyper::service::service_fn(move |request| {
            let sender = std::sync::Arc::clone(&sender);
            async move {
                let mut sender = sender.lock().await;
                sender.ready().await?;
                sender.send_request(request).await
            }
        });
        let _ = hyper::server::conn::http1::Builder::new()
            .serve_connection(TokioIo::new(client), service)
            .await;
    })
}

/// A floor's loop on one thread: binds loopback, prints the address on
/// stdout, and gives each client connection, with an upstream connection of
/// its own (both `TCP_NODELAY`), to `relay`.
fn serve_floor<F, Fut>(upstream: &str, relay: F) -> Result<(), String>
where
    F: Fn(tokio::net::TcpStream, tokio::net::TcpStream) -> Fut + Copy + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let upstream: SocketAddr = upstream.parse().map_err(|e| format!("{upstream:?}: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        println!("{}", listener.local_addr().map_err(|e| e.to_string())?);
        loop {
            let Ok((client, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(async move {
                let Ok(server) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                relay(client, server).await;
            });
        }
    })
}
