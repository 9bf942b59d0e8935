//! stdio transport: one MCP connection over the process's stdin and stdout
//! (newline-delimited JSON-RPC; see `line` for how it is served).
//!
//! `tokio::io::stdin` and `stdout` do every read and write on tokio's blocking
//! thread pool: a hand-off to a pool thread and a wake-up back for each one.
//! MCP hosts start a stdio server with pipes (or, from Node's `child_process`,
//! Unix socket pairs), and those can be polled by tokio's reactor like any
//! socket, so on Unix [`serve_stdio`] reads and writes them that way and keeps
//! the blocking pool for what cannot be polled (a file, a terminal). The
//! descriptors are put in non-blocking mode while served and put back after.

use tokio::io::{AsyncRead, AsyncWrite};

use super::error::ServeError;
use super::handler::McpServer;
use super::options::ServerOptions;
use crate::hub::Hub;

/// Serves `hub` to one client over stdin/stdout until the client disconnects.
///
/// Needs a tokio runtime with its I/O and time drivers (`#[tokio::main]`, or a
/// runtime built with `enable_all`).
pub async fn serve_stdio(hub: Hub, options: ServerOptions) -> Result<(), ServeError> {
    #[cfg(unix)]
    {
        let (reader, read_mode) = polled::stdin();
        let (writer, write_mode) = polled::stdout();
        let served = serve_io(hub, options, reader, writer).await;
        // The reader and writer were dropped with the service: give the
        // descriptors back as they were found.
        read_mode.restore();
        write_mode.restore();
        served
    }
    #[cfg(not(unix))]
    serve_io(hub, options, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `hub` to one client over any byte stream pair (newline-delimited
/// JSON-RPC, as on stdio) until it closes.
pub async fn serve_io<R, W>(
    hub: Hub,
    options: ServerOptions,
    reader: R,
    writer: W,
) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    super::line::serve_lines(McpServer::new(hub, options), reader, writer).await
}

#[cfg(unix)]
mod polled {
    //! stdin and stdout through tokio's reactor when they are pipes or Unix
    //! sockets.

    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt as _;

    use tokio::net::UnixStream;
    use tokio::net::unix::pipe;
    use tokio_util::either::Either;

    /// What a standard descriptor is, and so how it is read or written.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Kind {
        Pipe,
        Socket,
    }

    /// How to put a standard descriptor back in blocking mode after serving.
    pub(super) struct Mode {
        fd: i32,
        kind: Option<Kind>,
    }

    impl Mode {
        /// Clears `O_NONBLOCK` again on a descriptor served through the reactor.
        pub(super) fn restore(self) {
            let Some(kind) = self.kind else { return };
            let fd = match self.fd {
                0 => std::io::stdin().as_fd().try_clone_to_owned(),
                _ => std::io::stdout().as_fd().try_clone_to_owned(),
            };
            let Ok(fd) = fd else { return };
            // Failing to restore leaves the descriptor non-blocking, which
            // only matters to code that reads or writes it after serving.
            let _ = match kind {
                Kind::Pipe if self.fd == 0 => pipe::Receiver::from_owned_fd_unchecked(fd)
                    .and_then(pipe::Receiver::into_blocking_fd)
                    .map(drop),
                Kind::Pipe => pipe::Sender::from_owned_fd_unchecked(fd)
                    .and_then(pipe::Sender::into_blocking_fd)
                    .map(drop),
                Kind::Socket => std::os::unix::net::UnixStream::from(fd).set_nonblocking(false),
            };
        }
    }

    /// The kind of `fd` if the reactor can poll it, and a duplicate of it.
    fn pollable(fd: BorrowedFd<'_>) -> Option<(Kind, OwnedFd)> {
        let owned = fd.try_clone_to_owned().ok()?;
        let file = std::fs::File::from(owned);
        let kind = file.metadata().ok()?.file_type();
        if kind.is_fifo() {
            return Some((Kind::Pipe, file.into()));
        }
        if kind.is_socket() {
            let stream = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
            // A Unix socket only (a socket pair from the host); a TCP socket
            // handed over as stdin goes the portable way.
            stream.local_addr().ok()?;
            return Some((Kind::Socket, stream.into()));
        }
        None
    }

    fn socket(fd: OwnedFd) -> io::Result<UnixStream> {
        let stream = std::os::unix::net::UnixStream::from(fd);
        stream.set_nonblocking(true)?;
        UnixStream::from_std(stream)
    }

    /// Standard stream `fd` (borrowed as `borrowed`) as a pipe end built by
    /// `pipe_end` or a Unix socket, both polled; `fallback` when it is neither
    /// or cannot be made non-blocking.
    fn open<P, F>(
        fd: i32,
        borrowed: BorrowedFd<'_>,
        pipe_end: impl FnOnce(OwnedFd) -> io::Result<P>,
        fallback: impl FnOnce() -> F,
    ) -> (Either<Either<P, UnixStream>, F>, Mode) {
        let polled = pollable(borrowed).and_then(|(kind, owned)| {
            let stream = match kind {
                Kind::Pipe => pipe_end(owned).map(Either::Left),
                Kind::Socket => socket(owned).map(Either::Right),
            };
            Some((stream.ok()?, kind))
        });
        match polled {
            Some((stream, kind)) => (
                Either::Left(stream),
                Mode {
                    fd,
                    kind: Some(kind),
                },
            ),
            None => (Either::Right(fallback()), Mode { fd, kind: None }),
        }
    }

    /// The reader for stdin.
    pub(super) fn stdin() -> (
        Either<Either<pipe::Receiver, UnixStream>, tokio::io::Stdin>,
        Mode,
    ) {
        open(
            0,
            std::io::stdin().as_fd(),
            pipe::Receiver::from_owned_fd,
            tokio::io::stdin,
        )
    }

    /// The writer for stdout.
    pub(super) fn stdout() -> (
        Either<Either<pipe::Sender, UnixStream>, tokio::io::Stdout>,
        Mode,
    ) {
        open(
            1,
            std::io::stdout().as_fd(),
            pipe::Sender::from_owned_fd,
            tokio::io::stdout,
        )
    }
}
