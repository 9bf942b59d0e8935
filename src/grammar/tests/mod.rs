//! Tests of the grammar layer.
