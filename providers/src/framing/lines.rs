//! Incremental line splitter for `\n`, `\r\n` and `\r` line endings, with a length limit.

/// What the splitter hands to its caller.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineEvent<'a> {
    /// One complete line, without its terminator.
    Line(&'a [u8]),
    /// A line grew past the limit; its bytes are dropped up to the next terminator.
    TooLong {
        /// The limit that was exceeded.
        limit: usize,
    },
}

/// Splits bytes into lines, keeping a cursor so that no byte is scanned twice.
///
/// State: `buf[start..]` is the unfinished line, of which `buf[start..scan]` is known to
/// hold no terminator. `skip_lf` is set after a `\r` so that a `\n` arriving in the next
/// chunk (a `\r\n` split in two) does not make an empty line. `discarding` is set while
/// the bytes of an over-long line are being dropped.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    buf: Vec<u8>,
    start: usize,
    scan: usize,
    skip_lf: bool,
    discarding: bool,
    max_line: usize,
}

impl LineSplitter {
    pub(crate) fn new(max_line: usize) -> Self {
        LineSplitter {
            buf: Vec::new(),
            start: 0,
            scan: 0,
            skip_lf: false,
            discarding: false,
            max_line,
        }
    }

    /// Feeds a chunk, calling `on_line` for every line it completes.
    pub(crate) fn push(&mut self, chunk: &[u8], mut on_line: impl FnMut(LineEvent<'_>)) {
        self.buf.extend_from_slice(chunk);
        loop {
            if self.skip_lf {
                if self.start >= self.buf.len() {
                    break;
                }
                if self.buf[self.start] == b'\n' {
                    self.start += 1;
                    self.scan = self.start;
                }
                self.skip_lf = false;
            }
            let found = self.buf[self.scan..]
                .iter()
                .position(|&b| b == b'\n' || b == b'\r');
            match found {
                Some(p) => {
                    let end = self.scan + p;
                    if self.discarding {
                        self.discarding = false;
                    } else if end - self.start > self.max_line {
                        on_line(LineEvent::TooLong {
                            limit: self.max_line,
                        });
                    } else {
                        on_line(LineEvent::Line(&self.buf[self.start..end]));
                    }
                    self.skip_lf = self.buf[end] == b'\r';
                    self.start = end + 1;
                    self.scan = self.start;
                }
                None => {
                    self.scan = self.buf.len();
                    if self.buf.len() - self.start > self.max_line {
                        if !self.discarding {
                            on_line(LineEvent::TooLong {
                                limit: self.max_line,
                            });
                        }
                        self.discarding = true;
                        self.start = self.buf.len();
                        self.scan = self.start;
                    }
                    break;
                }
            }
        }
        self.compact();
    }

    /// Ends the input: an unterminated last line is handed over as a line.
    pub(crate) fn finish(&mut self, mut on_line: impl FnMut(LineEvent<'_>)) {
        if !self.discarding && self.start < self.buf.len() {
            if self.buf.len() - self.start > self.max_line {
                on_line(LineEvent::TooLong {
                    limit: self.max_line,
                });
            } else {
                on_line(LineEvent::Line(&self.buf[self.start..]));
            }
        }
        self.buf.clear();
        self.start = 0;
        self.scan = 0;
        self.discarding = false;
        self.skip_lf = false;
    }

    fn compact(&mut self) {
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
            self.scan = 0;
        } else if self.start > 8192 && self.start * 2 > self.buf.len() {
            self.buf.drain(..self.start);
            self.scan -= self.start;
            self.start = 0;
        }
    }
}
