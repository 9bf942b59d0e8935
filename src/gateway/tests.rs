//! Unit tests of configuration reading, naming and tool-list admission.
