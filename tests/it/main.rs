//! integration tests
