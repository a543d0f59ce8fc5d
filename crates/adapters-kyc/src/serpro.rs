//! Serpro's Consulta CPF (`GET {base}/cpf/{ni}`, v1 or v2): the CPF's `situacao` `{codigo,
//! descricao}` as the Receita Federal holds it. Access is OAuth2's client credentials: the
//! consumer key and secret (HTTP basic) buy a bearer token at `/token`, kept until shortly before
//! it expires (one per instance: nothing breaks with two) and bought again after a 401.
//!
//! Answers: 200 and 206 (some optional member missing) carry the status; 404 is a number never
//! issued ([`CpfSituation::Inexistente`]); anything else (400, 401 twice, 403, 422 for a minor's
//! data, 5xx, a timeout, a body we cannot read) is no answer, and the sale goes on under
//! diligence.

use async_trait::async_trait;
use domain::kyc::cpf_status::{CpfSituation, CpfStatus, CpfStatusUnavailable};
use domain::values::Cpf;
use observability::metric::{self, Outcome};
use serde::Deserialize;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// Where and as whom the service asks.
#[derive(Clone)]
pub struct SerproSettings {
    /// The API's base, `https://gateway.apiserpro.serpro.gov.br/consulta-cpf-df/v1` (a test
    /// server in tests).
    pub base_url: String,
    /// `https://gateway.apiserpro.serpro.gov.br/token`.
    pub token_url: String,
    pub consumer_key: String,
    pub consumer_secret: String,
    pub timeout: Duration,
}

impl std::fmt::Debug for SerproSettings {
    // The secret is a credential: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SerproSettings")
            .field("base_url", &self.base_url)
            .field("token_url", &self.token_url)
            .field("consumer_key", &self.consumer_key)
            .field("consumer_secret", &"***")
            .finish()
    }
}

/// A bearer token and when to stop using it.
struct Token {
    value: String,
    until: Instant,
}

/// Serpro's Consulta CPF as the [`CpfStatus`] port.
pub struct SerproCpfStatus {
    settings: SerproSettings,
    http: reqwest::Client,
    token: Mutex<Option<Token>>,
}

/// The margin before a token's expiry at which it is bought again.
const TOKEN_MARGIN: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    expires_in: Option<u64>,
}

#[derive(Deserialize)]
struct CpfAnswer {
    situacao: Situacao,
}

#[derive(Deserialize)]
struct Situacao {
    codigo: String,
}

impl SerproCpfStatus {
    pub fn new(settings: SerproSettings) -> Result<Self, CpfStatusUnavailable> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .build()
            .map_err(|e| CpfStatusUnavailable(e.to_string()))?;
        Ok(Self {
            settings,
            http,
            token: Mutex::new(None),
        })
    }

    /// A token still good, bought if none is.
    async fn token(&self) -> Result<String, CpfStatusUnavailable> {
        let mut kept = self.token.lock().await;
        if let Some(token) = kept.as_ref().filter(|t| t.until > Instant::now()) {
            return Ok(token.value.clone());
        }
        let started = Instant::now();
        let answer = self
            .http
            .post(&self.settings.token_url)
            .basic_auth(&self.settings.consumer_key, Some(&self.settings.consumer_secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await;
        let result = match answer {
            Err(e) => Err((outcome_of(&e), format!("token: {e}"))),
            Ok(response) if !response.status().is_success() => Err((
                Outcome::of_status(response.status().as_u16()),
                format!("token: HTTP {}", response.status()),
            )),
            Ok(response) => response
                .json::<TokenAnswer>()
                .await
                .map_err(|e| (Outcome::Rejected, format!("token ilegível: {e}"))),
        };
        metric::outbound_call(
            "serpro_token",
            started.elapsed(),
            result.as_ref().map_or_else(|e| e.0, |_| Outcome::Ok),
        );
        let answer = result.map_err(|(_, why)| CpfStatusUnavailable(why))?;
        let lasts = Duration::from_secs(answer.expires_in.unwrap_or(3600)).saturating_sub(TOKEN_MARGIN);
        *kept = Some(Token {
            value: answer.access_token.clone(),
            until: Instant::now() + lasts,
        });
        Ok(answer.access_token)
    }

    async fn forget_token(&self) {
        *self.token.lock().await = None;
    }

    /// One consultation with `token`: `Ok(None)` when the token was refused (401).
    async fn ask(&self, cpf: &Cpf, token: &str) -> Result<Option<CpfSituation>, CpfStatusUnavailable> {
        let url = format!("{}/cpf/{}", self.settings.base_url.trim_end_matches('/'), cpf.as_str());
        let started = Instant::now();
        let answer = self
            .http
            .get(url)
            .bearer_auth(token)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await;
        let (outcome, result) = match answer {
            Err(e) => (outcome_of(&e), Err(CpfStatusUnavailable(e.to_string()))),
            Ok(response) => match response.status().as_u16() {
                200 | 206 => match response.json::<CpfAnswer>().await {
                    Ok(body) => match CpfSituation::from_serpro_code(&body.situacao.codigo) {
                        Some(situation) => (Outcome::Ok, Ok(Some(situation))),
                        None => (
                            Outcome::Rejected,
                            Err(CpfStatusUnavailable(format!(
                                "código de situação desconhecido: {}",
                                body.situacao.codigo
                            ))),
                        ),
                    },
                    Err(e) => (
                        Outcome::Rejected,
                        Err(CpfStatusUnavailable(format!("resposta ilegível: {e}"))),
                    ),
                },
                404 => (Outcome::Ok, Ok(Some(CpfSituation::Inexistente))),
                401 => (Outcome::Rejected, Ok(None)),
                status => (
                    Outcome::of_status(status),
                    Err(CpfStatusUnavailable(format!("HTTP {status}"))),
                ),
            },
        };
        metric::outbound_call("serpro_cpf", started.elapsed(), outcome);
        result
    }
}

fn outcome_of(error: &reqwest::Error) -> Outcome {
    if error.is_timeout() {
        Outcome::Timeout
    } else {
        Outcome::Connection
    }
}

#[async_trait]
impl CpfStatus for SerproCpfStatus {
    async fn situation(&self, cpf: &Cpf) -> Result<CpfSituation, CpfStatusUnavailable> {
        let token = self.token().await?;
        if let Some(situation) = self.ask(cpf, &token).await? {
            return Ok(situation);
        }
        // A token refused before its time (revoked, or the gateway restarted): one more, once.
        self.forget_token().await;
        let token = self.token().await?;
        self.ask(cpf, &token)
            .await?
            .ok_or_else(|| CpfStatusUnavailable("credenciais recusadas pelo Serpro (HTTP 401)".to_owned()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use wiremock::matchers::{body_string_contains, header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    fn settings(server: &MockServer) -> SerproSettings {
        SerproSettings {
            base_url: format!("{}/consulta-cpf-df/v1", server.uri()),
            token_url: format!("{}/token", server.uri()),
            consumer_key: "chave".into(),
            consumer_secret: "segredo".into(),
            timeout: Duration::from_millis(500),
        }
    }

    fn cpf() -> Cpf {
        Cpf::parse("52998224725").unwrap()
    }

    async fn token_server(token: &str, expected_calls: impl Into<wiremock::Times>) -> MockServer {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/token"))
            // basic base64("chave:segredo")
            .and(header("authorization", "Basic Y2hhdmU6c2VncmVkbw=="))
            .and(body_string_contains("grant_type=client_credentials"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "access_token": token, "token_type": "Bearer", "expires_in": 3600
            })))
            .expect(expected_calls)
            .mount(&server)
            .await;
        server
    }

    fn situation(code: &str) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "ni": "52998224725", "nome": "MARIA DA SILVA",
            "situacao": {"codigo": code, "descricao": "qualquer"}, "nascimento": "15051990"
        }))
    }

    #[tokio::test]
    async fn the_status_is_read_from_its_code_with_one_token_for_several_consultations() {
        let server = token_server("t1", 1).await;
        Mock::given(method("GET"))
            .and(path("/consulta-cpf-df/v1/cpf/52998224725"))
            .and(header("authorization", "Bearer t1"))
            .respond_with(situation("9"))
            .expect(2)
            .mount(&server)
            .await;
        let serpro = SerproCpfStatus::new(settings(&server)).unwrap();
        assert_eq!(serpro.situation(&cpf()).await.unwrap(), CpfSituation::Cancelada);
        assert_eq!(serpro.situation(&cpf()).await.unwrap(), CpfSituation::Cancelada);
    }

    #[tokio::test]
    async fn a_number_never_issued_is_inexistente_and_a_partial_answer_still_counts() {
        let server = token_server("t1", 1).await;
        Mock::given(method("GET"))
            .and(path("/consulta-cpf-df/v1/cpf/52998224725"))
            .respond_with(ResponseTemplate::new(404).set_body_json(serde_json::json!({"error": "not_found"})))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/consulta-cpf-df/v1/cpf/52998224725"))
            .respond_with(ResponseTemplate::new(206).set_body_json(serde_json::json!({
                "ni": "52998224725", "nome": "MARIA", "situacao": {"codigo": "0", "descricao": "REGULAR"}
            })))
            .mount(&server)
            .await;
        let serpro = SerproCpfStatus::new(settings(&server)).unwrap();
        assert_eq!(serpro.situation(&cpf()).await.unwrap(), CpfSituation::Inexistente);
        assert_eq!(serpro.situation(&cpf()).await.unwrap(), CpfSituation::Regular);
    }

    #[tokio::test]
    async fn a_refused_token_is_bought_again_once() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/token"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(serde_json::json!({"access_token": "old", "expires_in": 3600})),
            )
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/token"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(serde_json::json!({"access_token": "new", "expires_in": 3600})),
            )
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(header("authorization", "Bearer old"))
            .respond_with(ResponseTemplate::new(401))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(header("authorization", "Bearer new"))
            .respond_with(situation("0"))
            .mount(&server)
            .await;
        let serpro = SerproCpfStatus::new(settings(&server)).unwrap();
        assert_eq!(serpro.situation(&cpf()).await.unwrap(), CpfSituation::Regular);
    }

    #[tokio::test]
    async fn errors_slowness_unknown_codes_and_credentials_refused_twice_are_no_answer() {
        for answer in [
            ResponseTemplate::new(500),
            ResponseTemplate::new(422),
            ResponseTemplate::new(401),
            situation("7"),
            ResponseTemplate::new(200).set_body_string("<html>"),
            situation("0").set_delay(Duration::from_secs(2)),
        ] {
            let server = token_server("t1", 1..=2).await;
            Mock::given(method("GET")).respond_with(answer).mount(&server).await;
            let serpro = SerproCpfStatus::new(settings(&server)).unwrap();
            assert!(serpro.situation(&cpf()).await.is_err());
        }
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(401))
            .mount(&server)
            .await;
        let serpro = SerproCpfStatus::new(settings(&server)).unwrap();
        let Err(CpfStatusUnavailable(why)) = serpro.situation(&cpf()).await else {
            panic!("a refused token is no answer")
        };
        assert!(why.contains("token"), "{why}");
    }
}
