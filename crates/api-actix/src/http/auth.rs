//! Who is calling: the bearer token's principal, and the caller's network address.

use crate::http::error::{ApiError, ErrorCode};
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use contract_versions::ApiVersion;
use domain::auth::model::Principal;
use domain::values::Application;
use futures_util::future::LocalBoxFuture;
use ipnet::IpNet;
use std::future::{Ready, ready};
use std::net::IpAddr;

/// A caller with a valid access token whose session holds, and the contract version its user is
/// pinned to. Missing, malformed, expired, badly signed, `alg: none` and refresh tokens all answer
/// 401 `nao_autenticado`; a token of a session that is over (signed out, password reset, user
/// disabled or changed) 401 `sessao_encerrada`.
#[derive(Debug, Clone)]
pub struct AuthenticatedUser(pub Principal, pub Option<ApiVersion>);

impl AuthenticatedUser {
    /// The caller a token names, kept on the request so that its answer is in the caller's version.
    pub async fn identify(state: &AppState, token: &str) -> Result<Self, ApiError> {
        let (principal, holding) = state.authenticator.identify(token).await?;
        Ok(AuthenticatedUser(
            principal,
            ApiVersion::from_pin(holding.pinned_version.as_deref()),
        ))
    }
}

impl AuthenticatedUser {
    /// 403 unless the token's application is one of `allowed`.
    pub fn require(&self, allowed: &[Application]) -> Result<Principal, ApiError> {
        if allowed.contains(&self.0.application) {
            Ok(self.0.clone())
        } else {
            Err(ApiError::new(ErrorCode::Forbidden))
        }
    }
}

pub(crate) fn bearer(req: &HttpRequest) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

impl FromRequest for AuthenticatedUser {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        // Already checked by the rate limit, for this very request.
        if let Some(user) = req.extensions().get::<AuthenticatedUser>().cloned() {
            tracing::Span::current().record("user_id", user.0.user_id);
            return Box::pin(async move { Ok(user) });
        }
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let token = bearer(req).map(str::to_owned);
        let request = req.clone();
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::new(ErrorCode::Internal))?;
            let token = token.ok_or_else(|| ApiError::new(ErrorCode::Unauthorized))?;
            let user = AuthenticatedUser::identify(&state, &token).await?;
            tracing::Span::current().record("user_id", user.0.user_id);
            request.extensions_mut().insert(user.clone());
            Ok(user)
        })
    }
}

/// The caller's address: the socket's peer, unless that peer is a configured trusted proxy, in
/// which case the nearest address in `X-Forwarded-For` that is not itself a trusted proxy. A
/// forged header from an untrusted peer is ignored.
#[derive(Debug, Clone)]
pub struct ClientAddress(pub Option<IpAddr>);

pub fn client_address(req: &HttpRequest, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = req.peer_addr()?.ip();
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    // Walk from the nearest hop outwards; the first address not ours is the client.
    Some(
        forwarded
            .iter()
            .rev()
            .find(|ip| !is_trusted(ip))
            .or(forwarded.first())
            .copied()
            .unwrap_or(peer),
    )
}

impl FromRequest for ClientAddress {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let trusted = req
            .app_data::<web::Data<AppState>>()
            .map(|s| s.trusted_proxies.clone())
            .unwrap_or_default();
        ready(Ok(ClientAddress(client_address(req, &trusted))))
    }
}

/// Who may move the sandbox platform's money and clock (`/sandbox/clock`, `/sandbox/payments`;
/// development only): a tester on the service's own machine (a loopback client, as the address
/// is read behind trusted proxies), or anyone else with a back office token. A shared staging
/// instance is thereby not everyone's to bill or to age. The sandbox signing page stays open: it
/// plays the customer's link.
#[derive(Debug, Clone, Copy)]
pub struct SandboxOperator;

impl FromRequest for SandboxOperator {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let trusted = req
            .app_data::<web::Data<AppState>>()
            .map(|s| s.trusted_proxies.clone())
            .unwrap_or_default();
        if client_address(req, &trusted).is_some_and(|ip| ip.is_loopback()) {
            return Box::pin(async { Ok(SandboxOperator) });
        }
        let user = AuthenticatedUser::from_request(req, payload);
        Box::pin(async move {
            match user.await?.0.application {
                Application::BackOffice => Ok(SandboxOperator),
                _ => Err(ApiError::new(ErrorCode::Forbidden)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_the_header_says() {
        let req = TestRequest::default()
            .peer_addr("203.0.113.5:5000".parse().unwrap())
            .insert_header(("x-forwarded-for", "198.51.100.1"))
            .to_http_request();
        assert_eq!(client_address(&req, &[]), Some("203.0.113.5".parse().unwrap()));
        assert_eq!(
            client_address(&req, &nets(&["10.0.0.0/8"])),
            Some("203.0.113.5".parse().unwrap())
        );
    }

    #[test]
    fn behind_a_trusted_proxy_the_nearest_untrusted_hop_is_the_client() {
        let req = TestRequest::default()
            .peer_addr("10.0.0.2:5000".parse().unwrap())
            .insert_header(("x-forwarded-for", "6.6.6.6, 198.51.100.7, 10.0.0.9"))
            .to_http_request();
        // 6.6.6.6 may be forged by the client; 198.51.100.7 is what our proxies saw.
        assert_eq!(
            client_address(&req, &nets(&["10.0.0.0/8"])),
            Some("198.51.100.7".parse().unwrap())
        );
    }

    #[test]
    fn a_token_outside_the_routes_applications_is_forbidden() {
        let user = AuthenticatedUser(
            Principal {
                user_id: 1,
                email: "ana@exemplo.com.br".into(),
                application: Application::Partner,
                session_id: uuid::Uuid::nil(),
            },
            None,
        );
        assert!(user.require(&[Application::Partner, Application::BackOffice]).is_ok());
        let refused = user.require(&[Application::BackOffice]).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
        assert_eq!(refused.code.status(), actix_web::http::StatusCode::FORBIDDEN);
    }

    #[test]
    fn bearer_scheme_is_case_insensitive_and_must_carry_a_token() {
        let req = TestRequest::default()
            .insert_header(("authorization", "bearer abc"))
            .to_http_request();
        assert_eq!(bearer(&req), Some("abc"));
        let req = TestRequest::default()
            .insert_header(("authorization", "Basic abc"))
            .to_http_request();
        assert_eq!(bearer(&req), None);
        let req = TestRequest::default()
            .insert_header(("authorization", "Bearer "))
            .to_http_request();
        assert_eq!(bearer(&req), None);
    }
}
