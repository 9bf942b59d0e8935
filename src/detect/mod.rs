//! The streaming tool-call detector.
