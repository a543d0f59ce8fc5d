//! The harness of the black-box tests: a real `sales-api` server (the same `Application` that
//! `sales-api serve` runs) on a free loopback port, over a database of the test's own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgAccounts, PoolSettings, build_pool};
use api_actix::app::Application;
use api_actix::config::Config;
use api_actix::security::jwt::JwtTokenService;
use api_actix::security::password::BcryptHasher;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::auth::password::PasswordPolicy;
use domain::users::{AdministerUsers, CreateUser, NewUserInput};
use ed25519_dalek::SigningKey;
use ed25519_dalek::pkcs8::DecodePrivateKey;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub mod browser;
pub mod smtp;

pub use reqwest::StatusCode;

async fn get_from(client: &reqwest::Client, url: String, token: Option<&str>) -> reqwest::Response {
    let mut request = client.get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

/// A running instance of the service that does not own its database.
pub struct Instance {
    pub address: String,
    pub client: reqwest::Client,
    handle: api_actix::app::ServerHandle,
}

impl Instance {
    /// Starts the service; answers it and its metrics address, when on.
    async fn start(config: Config) -> (Self, Option<String>) {
        api_actix::install_crypto_provider();
        capture_logs();
        let app = Application::build(config).await.unwrap();
        let address = format!("http://127.0.0.1:{}", app.port());
        let metrics_address = app.metrics_port().map(|port| format!("http://127.0.0.1:{port}"));
        let handle = app.handle();
        tokio::spawn(app.run_until_stopped());
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        (
            Self {
                address,
                client,
                handle,
            },
            metrics_address,
        )
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> reqwest::Response {
        get_from(&self.client, self.url(path), token).await
    }

    pub async fn stop(&self) {
        self.handle.stop(false).await;
    }
}

pub struct TestApp {
    pub address: String,
    /// The metrics listener's address, when the test turned it on (`METRICS_ADDR`).
    pub metrics_address: Option<String>,
    pub db: TestDatabase,
    pub client: reqwest::Client,
    handle: api_actix::app::ServerHandle,
}

/// Everything the services of this test process log, at debug level for the service's own crates,
/// goes to `$SALES_TEST_LOG_DIR/<test binary>-<pid>.log` when that variable is set (the test
/// command sets it and then audits the files for sensitive data: `scripts/audit-test-logs.sh`).
fn capture_logs() {
    static CAPTURE: OnceLock<()> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let Ok(dir) = std::env::var("SALES_TEST_LOG_DIR") else {
            return;
        };
        std::fs::create_dir_all(&dir).unwrap();
        let binary = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "tests".into());
        let file =
            std::fs::File::create(PathBuf::from(dir).join(format!("{binary}-{}.log", std::process::id()))).unwrap();
        let filter = tracing_subscriber::EnvFilter::new(
            "info,api_actix=debug,domain=debug,adapters_postgres=debug,adapters_payment=debug,\
             adapters_signature=debug,adapters_mailer=debug,adapters_webhooks=debug,tracing_actix_web=debug",
        );
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(file))
            .try_init();
    });
}

/// One signing key per test process, written where the configuration can name it.
fn key_file() -> &'static PathBuf {
    static KEY: OnceLock<PathBuf> = OnceLock::new();
    KEY.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("sales-api-test-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("jwt-ed25519.pem");
        let (private, _) = api_actix::security::jwt::generate_key_pair().unwrap();
        std::fs::write(&path, private).unwrap();
        path
    })
}

/// The token service the server uses, so that tests can mint tokens of their own (expired ones).
pub fn token_service() -> JwtTokenService {
    let pem = std::fs::read_to_string(key_file()).unwrap();
    let key = SigningKey::from_pkcs8_pem(&pem).unwrap();
    JwtTokenService::new(&key, &[], "sales-api", "sales-api").unwrap()
}

/// A key the server does not know.
pub fn foreign_token_service() -> JwtTokenService {
    let key = SigningKey::generate(&mut rand::rngs::OsRng);
    JwtTokenService::new(&key, &[], "sales-api", "sales-api").unwrap()
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_with(&[]).await
    }

    /// Starts the service with extra configuration pairs (they win over the defaults here).
    pub async fn spawn_with(extra: &[(&str, &str)]) -> Self {
        Self::spawn_on(TestDatabase::new().await, extra).await
    }

    /// Stops the service and starts another on the same database with other settings (the same
    /// token signing key, so tokens issued before still work).
    pub async fn restart_with(self, extra: &[(&str, &str)]) -> Self {
        self.stop().await;
        Self::spawn_on(self.db, extra).await
    }

    /// Where the service writes its mail (`.eml` files) without SMTP_URL.
    fn mail_dir(db: &TestDatabase) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("sales-api-test-mail-{}", db.name))
    }

    /// The messages with `subject` the service wrote to its mail folder for `to`, once one is
    /// complete (waiting up to 10 s: the mailer writes after the request's answer); other
    /// messages to the same person (a background pass's) are left out.
    pub async fn mails_to(&self, to: &str, subject: &str) -> Vec<smtp::Received> {
        let dir = Self::mail_dir(&self.db);
        let mut found = Vec::new();
        for _ in 0..200 {
            found = std::fs::read_dir(&dir)
                .map(|entries| {
                    entries
                        .flatten()
                        .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                        .filter_map(|e| std::fs::read(e.path()).ok())
                        .filter(|raw| {
                            let text = String::from_utf8_lossy(raw);
                            text.contains(&format!("To: {to}")) && text.trim_end().ends_with("--")
                        })
                        .map(|raw| smtp::Received {
                            to: vec![to.to_owned()],
                            raw,
                        })
                        .filter(|mail| mail.subject() == subject)
                        .collect()
                })
                .unwrap_or_default();
            if !found.is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        found
    }

    /// The configuration the service runs with, with extra pairs over the test defaults.
    pub fn config(db: &TestDatabase, extra: &[(&str, &str)]) -> Config {
        let key = key_file().to_string_lossy().into_owned();
        // Without SMTP_URL the service writes .eml files: keep them out of the work tree.
        let mail_dir = Self::mail_dir(db).to_string_lossy().into_owned();
        let mut pairs: Vec<(&str, &str)> = vec![
            ("SALES_ENV", "development"),
            ("DATABASE_URL", &db.url),
            ("JWT_PRIVATE_KEY_FILE", &key),
            ("BIND_ADDR", "127.0.0.1:0"),
            ("BCRYPT_COST", "4"),
            ("WORKERS", "1"),
            ("MIGRATE_ON_START", "false"),
            ("DB_POOL_WAIT_TIMEOUT_MS", "2000"),
            ("DB_CONNECT_TIMEOUT_MS", "2000"),
            ("SHUTDOWN_TIMEOUT_SECS", "1"),
            ("MAIL_DIR", &mail_dir),
            // One process runs many services: a metrics test turns its listener on (port 0).
            ("METRICS_ADDR", "off"),
        ];
        pairs.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
        pairs.extend_from_slice(extra);
        Config::from_pairs(&pairs).unwrap()
    }

    async fn spawn_on(db: TestDatabase, extra: &[(&str, &str)]) -> Self {
        let (instance, metrics_address) = Instance::start(Self::config(&db, extra)).await;
        Self {
            address: instance.address,
            metrics_address,
            db,
            client: instance.client,
            handle: instance.handle,
        }
    }

    /// A second instance of the service on this one's database (another process, as far as the
    /// database can tell: its own pool, its own listeners, its own memory).
    pub async fn another_instance(&self, extra: &[(&str, &str)]) -> Instance {
        Instance::start(Self::config(&self.db, extra)).await.0
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// Creates a user through the same use case as `sales-api user create` (a `PARCEIRO` user
    /// represents the demo partner).
    pub async fn create_user(&self, email: &str, password: &str, applications: &[&str]) -> i64 {
        self.create_user_for(email, password, applications, "11222333000181")
            .await
    }

    /// Loads the demo catalog and partner (products 101 to 103, billing groups 5001 to 5004).
    pub async fn seed_catalog(&self) {
        let pool = build_pool(&PoolSettings::new(&self.db.url)).unwrap();
        adapters_postgres::seed::seed_demo_catalog(&pool).await.unwrap();
    }

    /// Creates a user and signs it in; answers the access token.
    pub async fn token_for(&self, email: &str, application: &str, partner_cnpj: &str) -> String {
        self.create_user_for(email, "Vendas#2026", &[application], partner_cnpj)
            .await;
        self.sign_in(email, "Vendas#2026", application).await["token"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// `token`'s owner subscribed to `events` (route 17), delivered to a receiver on this machine
    /// that takes every delivery (the service started with `HOOKS_ALLOWED_CIDRS` covering it).
    pub async fn subscribed_receiver(&self, token: &str, events: &[&str]) -> wiremock::MockServer {
        let receiver = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(wiremock::ResponseTemplate::new(200))
            .mount(&receiver)
            .await;
        let hook = self
            .post_json_as(
                "/hooks",
                token,
                &serde_json::json!({"events": events, "endpoint": receiver.uri(), "status": "ATIVO"}),
            )
            .await;
        assert_eq!(hook.status(), StatusCode::OK, "{}", hook.text().await.unwrap());
        receiver
    }

    pub async fn post_json_as(&self, path: &str, token: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    pub async fn put_json_as(&self, path: &str, token: &str, body: &Value) -> reqwest::Response {
        self.client
            .put(self.url(path))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// Reads one number from the test's database.
    pub async fn count(&self, query: &str) -> i64 {
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let mut conn = AsyncPgConnection::establish(&self.db.url).await.unwrap();
        diesel::sql_query(query).get_result::<Count>(&mut conn).await.unwrap().n
    }

    /// The text column `line` of the one row `query` answers.
    pub async fn text(&self, query: &str) -> String {
        let mut conn = AsyncPgConnection::establish(&self.db.url).await.unwrap();
        adapters_postgres::testing::line(&mut conn, query).await
    }

    pub async fn create_user_for(&self, email: &str, password: &str, applications: &[&str], partner_cnpj: &str) -> i64 {
        let pool = build_pool(&PoolSettings::new(&self.db.url)).unwrap();
        let service = CreateUser {
            writer: Arc::new(PgAccounts::new(pool)),
            hasher: Arc::new(BcryptHasher::new(4, 2).unwrap()),
            policy: PasswordPolicy::default(),
        };
        let partner = applications.contains(&"PARCEIRO").then(|| partner_cnpj.to_owned());
        let input = NewUserInput {
            email: email.into(),
            password: password.into(),
            applications: applications.iter().map(|a| (*a).to_owned()).collect(),
            partner_cnpj: partner,
            ..Default::default()
        };
        CreateUser::execute(&service, input).await.unwrap()
    }

    /// The operator's changes to users, through the same use case as `sales-api user disable`
    /// and `sales-api user update`.
    pub fn user_administration(&self) -> AdministerUsers {
        let pool = build_pool(&PoolSettings::new(&self.db.url)).unwrap();
        AdministerUsers {
            store: Arc::new(PgAccounts::new(pool)),
        }
    }

    /// Runs SQL on the test's database (to arrange or inspect state a route cannot).
    pub async fn sql(&self, statement: &str) {
        let mut conn = AsyncPgConnection::establish(&self.db.url).await.unwrap();
        diesel::sql_query(statement).execute(&mut conn).await.unwrap();
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client.post(self.url(path)).json(body).send().await.unwrap()
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> reqwest::Response {
        get_from(&self.client, self.url(path), token).await
    }

    /// Signs in and answers the whole JSON body; panics unless 200.
    pub async fn sign_in(&self, email: &str, password: &str, application: &str) -> Value {
        let response = self
            .post_json(
                "/signin",
                &serde_json::json!({"email": email, "password": password, "aplicacao": application}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    pub async fn stop(&self) {
        self.handle.stop(false).await;
    }
}

/// A valid CPF made from `n` (its nine first digits), for tests that need many customers.
pub fn cpf_from(n: u32) -> String {
    let base: Vec<u32> = format!("{:09}", 100_000_000 + n % 800_000_000)
        .chars()
        .filter_map(|c| c.to_digit(10))
        .collect();
    let digit = |digits: &[u32]| {
        let weight = u32::try_from(digits.len()).unwrap() + 1;
        let sum: u32 = digits
            .iter()
            .enumerate()
            .map(|(i, d)| d * (weight - u32::try_from(i).unwrap()))
            .sum();
        let rest = (sum * 10) % 11;
        if rest == 10 { 0 } else { rest }
    };
    let mut digits = base.clone();
    digits.push(digit(&digits));
    digits.push(digit(&digits));
    digits.iter().map(|d| char::from_digit(*d, 10).unwrap()).collect()
}

/// A valid route-3 body (the customer's registration, with a medicine and an address) for the
/// customer with this CPF.
pub fn customer_body(cpf: &str) -> Value {
    serde_json::json!({
        "cliente": {
            "nome_completo": "Maria da Silva", "cpf": cpf, "data_nascimento": "1990-05-15T00:00:00.000Z",
            "sexo": "Feminino", "estado_civil": "Solteiro", "nacionalidade": "Brasileira", "celular": "(11) 91234-5678",
            "telefone_fixo": "(11) 3123-4567", "email": "maria@exemplo.com.br", "profissao": "Professora", "salario": 0,
            "trabalhando": true, "servidor_publico": false, "pep": false, "afastado": false, "medicamento": true,
            "medicamento_descricao": "Losartana", "e_analfabeto": false
        },
        "endereco": {"cep": "01310100", "endereco": "Avenida Paulista", "numero": 1000, "bairro": "Bela Vista",
            "cidade": "São Paulo", "estado": "SP", "complemento": null}
    })
}

/// A valid route-5 body (payroll discount, demo product 101) for the customer with this CPF.
pub fn proposal_body(cpf: &str) -> Value {
    serde_json::json!({
        "billingCode": 5002, "productCode": 101, "typeOfPayments": "DESCONTO EM FOLHA", "shippingType": "whatsapp",
        "customer": {"fullName": "Maria da Silva", "cpf": cpf, "birthDate": "1990-05-15", "gender": "Feminino",
            "maritalStatus": "Casado", "nationality": "Brasileira", "cellPhone": "(11) 91234-5678",
            "email": "maria@exemplo.com.br", "profession": "Professora", "salary": 141200},
        "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000", "neighborhood": "Bela Vista",
            "city": "São Paulo", "state": "SP"},
        "discountOnSheet": {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"}
    })
}

/// A valid route-6 body (demo product 103, the shop's card product) for the customer with this CPF.
pub fn shop_proposal_body(cpf: &str) -> Value {
    serde_json::json!({
        "billingCode": 5004, "productCode": 103, "shippingType": "sms",
        "customer": {"fullName": "João Souza", "cpf": cpf, "birthDate": "1985-03-10", "gender": "Masculino",
            "maritalStatus": "Solteiro", "cellPhone": "(21) 99876-5432", "email": "joao@exemplo.com.br"},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro",
            "city": "Rio de Janeiro", "state": "RJ", "complement": "Sala 501"}
    })
}

impl TestApp {
    /// Each of the four parties signs the proposal's request through the sandbox's button (the
    /// keys read through route 7 with the back office's token): the proposal moves to analysis.
    pub async fn sign_as_every_party(&self, office_token: &str, identifier: &str) {
        let detail: Value = self
            .get(&format!("/proposal/byIdentifier/{identifier}"), Some(office_token))
            .await
            .json()
            .await
            .unwrap();
        for key in ["clientKey", "associationKey", "federationKey", "enterpriseKey"] {
            let key = detail["data"]["sign"][key].as_str().unwrap();
            let signed = self
                .client
                .post(self.url(&format!("/sandbox/sign/{key}")))
                .header("accept", "application/json")
                .send()
                .await
                .unwrap();
            assert_eq!(signed.status(), StatusCode::OK);
        }
    }

    /// Creates a proposal through route 5 with a partner's token and sends it for signature
    /// (route 12); answers its identifier.
    pub async fn sent_proposal(&self, partner_token: &str, cpf: &str) -> String {
        self.sent_proposal_of(partner_token, &proposal_body(cpf)).await
    }

    /// Creates the route 5 proposal `body` with a partner's token and sends it for signature
    /// (route 12); answers its identifier.
    pub async fn sent_proposal_of(&self, partner_token: &str, body: &Value) -> String {
        let created = self.post_json_as("/proposal/create", partner_token, body).await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let created: Value = created.json().await.unwrap();
        let record = &created["document"][0];
        let identifier = record["identificador"].as_str().unwrap().to_owned();
        let body = serde_json::json!({"customerId": record["id_cliente"], "identifier": identifier});
        let sent = self.post_json_as("/signer", partner_token, &body).await;
        assert_eq!(sent.status(), StatusCode::OK);
        identifier
    }

    /// The back office's decision: `PATCH /proposal/{identificador}/status` with a reason.
    pub async fn change_status(&self, token: &str, identifier: &str, status: &str, reason: &str) -> reqwest::Response {
        self.client
            .patch(self.url(&format!("/proposal/{identifier}/status")))
            .bearer_auth(token)
            .json(&serde_json::json!({"status": status, "reason": reason}))
            .send()
            .await
            .unwrap()
    }

    /// The seller cancels the proposal at the customer's request (`POST …/cancel`), which must
    /// succeed.
    pub async fn cancel_at_customers_request(&self, seller_token: &str, identifier: &str, reason: &str) {
        let cancelled = self
            .post_json_as(
                &format!("/proposal/{identifier}/cancel"),
                seller_token,
                &serde_json::json!({"reason": reason}),
            )
            .await;
        assert_eq!(
            cancelled.status(),
            StatusCode::OK,
            "{}",
            cancelled.text().await.unwrap_or_default()
        );
    }

    /// The legal hold lived through (issue 47): the seller cancels the approved contract past the
    /// right of regret, and the sandbox's clock moves past the five years its records are kept
    /// after it ends, so that its customer may be anonymised.
    pub async fn outlive_the_contract(&self, seller_token: &str, identifier: &str) {
        let moved = self
            .post_json("/sandbox/clock", &serde_json::json!({"daysAhead": 10}))
            .await;
        assert_eq!(moved.status(), StatusCode::OK);
        self.cancel_at_customers_request(seller_token, identifier, "Cliente mudou de emprego")
            .await;
        // Five years and a month after the cancellation.
        let moved = self
            .post_json("/sandbox/clock", &serde_json::json!({"daysAhead": 10 + 5 * 366 + 31}))
            .await;
        assert_eq!(moved.status(), StatusCode::OK);
    }

    /// Route 7's `data` for the proposal, as the token's caller sees it.
    pub async fn proposal_data(&self, identifier: &str, token: &str) -> Value {
        let response = self
            .get(&format!("/proposal/byIdentifier/{identifier}"), Some(token))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        body["data"].clone()
    }

    /// Creates a proposal through route 5 with a partner's token; answers its identifier.
    pub async fn create_proposal(&self, partner_token: &str, cpf: &str) -> String {
        self.create_proposal_of(partner_token, &proposal_body(cpf)).await
    }

    /// Creates the route 5 proposal `body` with a partner's token; answers its identifier.
    pub async fn create_proposal_of(&self, partner_token: &str, body: &Value) -> String {
        let response = self.post_json_as("/proposal/create", partner_token, body).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.unwrap();
        body["document"][0]["identificador"].as_str().unwrap().to_owned()
    }
}

/// The text of a PDF as a reader gets it, by poppler's `pdftotext` (installed by
/// `scripts/test.sh`), its whitespace collapsed to single spaces.
pub fn pdf_text(pdf: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("pdftotext")
        .args(["-", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("pdftotext (poppler-utils) is needed to read PDFs back: {e}"));
    child.stdin.take().unwrap().write_all(pdf).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "pdftotext failed");
    String::from_utf8(output.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A mock Clicksign Envelope API (v3) that creates envelope `env-1` with document `doc-1`.
/// Stripe's answers to routes 14 and 15: the customer `cus_real`, and the SetupIntent `seti_real`,
/// succeeded with `payment_method` at once or waiting for the buyer's card (`None`).
pub async fn mount_stripe_customer_and_setup_intent(stripe: &wiremock::MockServer, payment_method: Option<&str>) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    Mock::given(method("POST"))
        .and(path("/v1/customers"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"id": "cus_real"})))
        .mount(stripe)
        .await;
    let status = if payment_method.is_some() {
        "succeeded"
    } else {
        "requires_payment_method"
    };
    Mock::given(method("POST"))
        .and(path("/v1/setup_intents"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "id": "seti_real", "client_secret": "seti_real_secret_x", "status": status, "payment_method": payment_method})))
        .mount(stripe)
        .await;
}

pub async fn mount_clicksign_envelope(clicksign: &wiremock::MockServer) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    let resource = |kind: &str, id: &str| {
        ResponseTemplate::new(201)
            .set_body_json(serde_json::json!({"data": {"id": id, "type": kind, "attributes": {}}}))
    };
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes"))
        .respond_with(resource("envelopes", "env-1"))
        .mount(clicksign)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/documents"))
        .respond_with(resource("documents", "doc-1"))
        .mount(clicksign)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/documents"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            serde_json::json!({"data": [{"id": "doc-1", "type": "documents", "attributes": {"status": "draft"}}]}),
        ))
        .mount(clicksign)
        .await;
}

/// The rest of the Envelope API's send: signers keyed by what was sent (`s-<name>`, so tests can
/// tell the parties apart), their requirements, the envelope's activation and its notification.
pub async fn mount_clicksign_signers(clicksign: &wiremock::MockServer) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, Request, ResponseTemplate};
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/signers"))
        .respond_with(|r: &Request| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            let id = format!("s-{}", body["data"]["attributes"]["name"].as_str().unwrap());
            ResponseTemplate::new(201).set_body_json(serde_json::json!({"data": {"id": id, "type": "signers"}}))
        })
        .mount(clicksign)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/requirements"))
        .respond_with(
            ResponseTemplate::new(201)
                .set_body_json(serde_json::json!({"data": {"id": "req", "type": "requirements"}})),
        )
        .mount(clicksign)
        .await;
    Mock::given(method("PATCH"))
        .and(path("/api/v3/envelopes/env-1"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(serde_json::json!({"data": {"id": "env-1", "type": "envelopes"}})),
        )
        .mount(clicksign)
        .await;
}

/// The Envelope API's notification of `env-1`.
pub async fn mount_clicksign_notifications(clicksign: &wiremock::MockServer) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/notifications"))
        .respond_with(ResponseTemplate::new(202))
        .mount(clicksign)
        .await;
}

/// A signature provider's callback body for a party's event (`sign`, `refusal`), with its
/// `Content-Hmac` header under `secret`: (body, header).
pub fn signature_callback(secret: &str, kind: &str, key: &str) -> (String, String) {
    use hmac::Mac;
    let body = serde_json::json!({"event": {"name": kind, "occurred_at": chrono::Utc::now().to_rfc3339(),
        "data": {"signer": {"key": key, "auths": ["whatsapp"], "address": "203.0.113.7"}}}})
    .to_string();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    (body, format!("sha256={hex}"))
}

/// Reads a response as JSON and checks that it is the error envelope with this status and code.
pub async fn assert_error(response: reqwest::Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(response.status(), status);
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(content_type.as_deref(), Some("application/json"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "error", "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    assert_eq!(body["document"], serde_json::json!([]));
    assert_eq!(body["rowsAffected"], serde_json::json!([]));
    body
}

/// The fields named in a validation error's `errors`.
pub fn error_fields(body: &Value) -> Vec<String> {
    body["errors"]
        .as_array()
        .map(|a| a.iter().map(|e| e["field"].as_str().unwrap_or("").to_owned()).collect())
        .unwrap_or_default()
}

/// The JSON kinds a member may have, as the spec's tables write them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    String,
    Number,
    Boolean,
    Object,
    Array,
    StringOrNull,
    NumberOrNull,
    ObjectOrNull,
}

fn kind_matches(kind: Kind, value: &Value) -> bool {
    match kind {
        Kind::String => value.is_string(),
        Kind::Number => value.is_number(),
        Kind::Boolean => value.is_boolean(),
        Kind::Object => value.is_object(),
        Kind::Array => value.is_array(),
        Kind::StringOrNull => value.is_string() || value.is_null(),
        Kind::NumberOrNull => value.is_number() || value.is_null(),
        Kind::ObjectOrNull => value.is_object() || value.is_null(),
    }
}

/// Checks that `value` is an object with exactly these members, each of its kind.
pub fn assert_shape(value: &Value, members: &[(&str, Kind)]) {
    let object = value.as_object().unwrap_or_else(|| panic!("not an object: {value}"));
    let mut expected: Vec<&str> = members.iter().map(|(name, _)| *name).collect();
    let mut actual: Vec<&str> = object.keys().map(String::as_str).collect();
    expected.sort_unstable();
    actual.sort_unstable();
    assert_eq!(actual, expected, "members of {value}");
    for (name, kind) in members {
        assert!(
            kind_matches(*kind, &object[*name]),
            "{name} should be {kind:?}, is {}",
            object[*name]
        );
    }
}

/// An ISO 8601 UTC timestamp with milliseconds, as every timestamp of the contract.
pub fn assert_timestamp(value: &Value) {
    let text = value.as_str().unwrap_or_else(|| panic!("not a string: {value}"));
    assert!(chrono::DateTime::parse_from_rfc3339(text).is_ok(), "{text}");
    assert!(
        text.ends_with('Z') && text.len() == 24,
        "{text} is not UTC with milliseconds"
    );
}
