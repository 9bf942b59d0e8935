//! `ToolHandler`: the async code behind a tool, as a trait object or a closure.

use std::future::Future;
use std::marker::PhantomData;

use async_trait::async_trait;
use rmcp::model::CallToolResult;

use super::context::ToolContext;
use super::error::ToolError;
use crate::core::JsonObject;

/// The code that runs a tool. Arguments arrive already validated against the
/// tool's input schema.
#[async_trait]
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs the tool.
    async fn call(&self, args: JsonObject, ctx: ToolContext) -> Result<CallToolResult, ToolError>;
}

/// A [`ToolHandler`] made from an async closure.
pub struct FnHandler<F, Fut> {
    f: F,
    _fut: PhantomData<fn() -> Fut>,
}

impl<F, Fut> FnHandler<F, Fut>
where
    F: Fn(JsonObject, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
{
    /// Wraps a closure.
    pub fn new(f: F) -> Self {
        Self {
            f,
            _fut: PhantomData,
        }
    }
}

#[async_trait]
impl<F, Fut> ToolHandler for FnHandler<F, Fut>
where
    F: Fn(JsonObject, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
{
    async fn call(&self, args: JsonObject, ctx: ToolContext) -> Result<CallToolResult, ToolError> {
        (self.f)(args, ctx).await
    }
}
