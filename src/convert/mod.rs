//! Converters between the neutral types and each provider's dialect.
