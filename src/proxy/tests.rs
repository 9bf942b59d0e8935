//! Unit tests of the proxy: request reading, chunk writing, one-piece answers.
