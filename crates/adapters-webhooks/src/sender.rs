//! Sends deliveries with reqwest: no redirects followed, no proxies, bounded connect and total
//! time, and every address checked after resolution and before connecting, so that a name that
//! resolves (or re-resolves) to a private address is never reached.

use crate::address_policy::AddressPolicy;
use async_trait::async_trait;
use domain::hooks::endpoint::EndpointHost;
use domain::hooks::ports::{EndpointGuard, EndpointRefusal, WebhookSender};
use domain::hooks::{Endpoint, OutgoingWebhook, SendOutcome};
use observability::metric::{self, GaugeGuard};
use observability::outbound;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use std::error::Error as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct SenderSettings {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub policy: AddressPolicy,
}

impl Default for SenderSettings {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(15),
            policy: AddressPolicy::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("cliente HTTP dos webhooks: {0}")]
pub struct SenderBuildError(String);

#[derive(Debug, thiserror::Error)]
enum ResolveError {
    #[error("o host não resolve para nenhum endereço")]
    NoAddress,
    // The address stays out of the text: it may be an internal one the caller must not learn.
    #[error("endereço não público bloqueado")]
    Blocked(std::net::IpAddr),
}

/// Every address of the host, refused as a whole if any is not permitted.
async fn resolve_checked(policy: &AddressPolicy, host: &str, port: u16) -> Result<Vec<SocketAddr>, ResolveError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|_| ResolveError::NoAddress)?
        .collect();
    if addrs.is_empty() {
        return Err(ResolveError::NoAddress);
    }
    if let Some(blocked) = addrs.iter().find(|a| !policy.permits(a.ip())) {
        return Err(ResolveError::Blocked(blocked.ip()));
    }
    Ok(addrs)
}

struct GuardedResolver {
    policy: AddressPolicy,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        Box::pin(async move {
            let addrs = resolve_checked(&policy, name.as_str(), 0).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

pub struct HttpWebhookSender {
    client: reqwest::Client,
    policy: AddressPolicy,
    lookup_timeout: Duration,
}

impl HttpWebhookSender {
    pub fn new(settings: SenderSettings) -> Result<Self, SenderBuildError> {
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.request_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver {
                policy: settings.policy.clone(),
            }))
            .user_agent(concat!("sales-api-webhooks/", env!("CARGO_PKG_VERSION")))
            .pool_max_idle_per_host(32)
            .build()
            .map_err(|e| SenderBuildError(e.to_string()))?;
        Ok(Self {
            client,
            policy: settings.policy,
            lookup_timeout: settings.connect_timeout,
        })
    }
}

/// What the deliveries view says of a request that got no HTTP answer. One sentence for every
/// failure (refused, reset, timed out, unreadable answer): the log is read by the subscription's
/// owner, and telling "refused" from "closed" or "filtered", or naming the address a name resolved
/// to, would make it a scanner of whatever the service can reach. The cause chain goes to the
/// service's own log instead.
const NO_ANSWER: &str = "o destino recusou ou não respondeu";
const BLOCKED: &str = "endereço não público bloqueado";

fn describe(error: &reqwest::Error) -> &'static str {
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(ResolveError::Blocked(_)) = cause.downcast_ref::<ResolveError>() {
            return BLOCKED;
        }
        source = cause.source();
    }
    NO_ANSWER
}

/// The error's kind and causes, one line, for the service's own log: no headers and not the URL
/// (a receiver's URL may carry its own token in the query), so no secrets.
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "tempo esgotado".to_owned()
    } else if error.is_connect() {
        "falha de conexão".to_owned()
    } else {
        "falha no envio".to_owned()
    };
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(&self, request: &OutgoingWebhook) -> SendOutcome {
        let endpoint = match Endpoint::parse(&request.endpoint) {
            Ok(endpoint) => endpoint,
            Err(rejection) => {
                return SendOutcome::Failed {
                    error: rejection.message,
                };
            }
        };
        // Literal addresses never reach the resolver: judge them here.
        if let EndpointHost::Address(ip) = endpoint.host()
            && !self.policy.permits(ip)
        {
            return SendOutcome::Failed { error: BLOCKED.into() };
        }
        let _in_flight = GaugeGuard::enter(metric::WEBHOOK_IN_FLIGHT);
        let delivery = self
            .client
            .post(endpoint.as_str())
            .header(CONTENT_TYPE, "application/json")
            .header("webhook-id", &request.message_id)
            .header("webhook-timestamp", request.timestamp.to_string())
            .header("webhook-signature", &request.signature)
            .header("sales-version", &request.contract_version)
            .body(request.body.clone());
        match outbound::send("webhook", delivery).await {
            Ok(response) => SendOutcome::Answered {
                status: response.status().as_u16(),
                retry_after: retry_after(&response),
            },
            Err(error) => {
                tracing::info!(cause = %error_chain(&error), "webhook delivery got no answer");
                SendOutcome::Failed {
                    error: describe(&error).into(),
                }
            }
        }
    }
}

#[async_trait]
impl EndpointGuard for HttpWebhookSender {
    async fn check(&self, endpoint: &Endpoint) -> Result<(), EndpointRefusal> {
        match endpoint.host() {
            EndpointHost::Address(ip) if self.policy.permits(ip) => Ok(()),
            EndpointHost::Address(ip) => Err(EndpointRefusal::Blocked(ip.to_string())),
            EndpointHost::Name(name) => {
                let lookup = resolve_checked(&self.policy, &name, endpoint.port());
                match tokio::time::timeout(self.lookup_timeout, lookup).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(ResolveError::Blocked(ip))) => Err(EndpointRefusal::Blocked(ip.to_string())),
                    Ok(Err(ResolveError::NoAddress)) | Err(_) => Err(EndpointRefusal::Unresolvable),
                }
            }
        }
    }
}
