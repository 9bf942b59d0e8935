//! `Recorder`: an rmcp client handler that records what reaches the client.
#![allow(deprecated)] // the logging notification type (SEP-2577); the server still sends it

use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation, LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde_json::json;
use tokio::sync::mpsc;

/// Records progress (`progress N`), log (`log DATA`), elicitation
/// (`elicitation`) and `tools/list_changed` events in the order they reach the
/// client.
#[derive(Clone)]
pub struct Recorder {
    /// The protocol version the client asks for.
    pub version: ProtocolVersion,
    /// Where the events go.
    pub events: mpsc::UnboundedSender<String>,
    /// How the client answers elicitations (accepting with `{"name": "Ada"}`);
    /// `None`: it does not declare the capability.
    pub elicitation: Option<ElicitationAction>,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.elicitation.is_some() {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        let mut config =
            ClientConfig::new(capabilities, Implementation::new("toolrouter-test", "0"));
        config.protocol_version = self.version.clone();
        config
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let _ = self.events.send("elicitation".to_owned());
        let answer = self
            .elicitation
            .clone()
            .unwrap_or(ElicitationAction::Decline);
        let result = ElicitResult::new(answer.clone());
        Ok(match answer {
            ElicitationAction::Accept => result.with_content(json!({ "name": "Ada" })),
            _ => result,
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.events.send(format!("progress {}", params.progress));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.events.send(format!("log {}", params.data));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.events.send("tools/list_changed".to_owned());
    }
}
