//! The built `sales-api` binary in production (the default) and in development: what it refuses,
//! what it says at start, and that a complete production configuration serves.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{free_port, sales_api};
use adapters_postgres::testing::TestDatabase;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use wiremock::MockServer;

/// A directory of this test's own, with a token signing key in it.
fn keys(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sales-api-{name}-{}-{}", std::process::id(), free_port()));
    let status = sales_api()
        .args(["keys", "generate", "--out", dir.to_str().unwrap()])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// Outside services on loopback: Stripe, Clicksign and Serpro (mock HTTP servers) and an SMTP port.
struct Providers {
    stripe: MockServer,
    clicksign: MockServer,
    serpro: MockServer,
    smtp: std::net::TcpListener,
}

impl Providers {
    async fn start() -> Self {
        Self {
            stripe: MockServer::start().await,
            clicksign: MockServer::start().await,
            serpro: MockServer::start().await,
            smtp: std::net::TcpListener::bind("127.0.0.1:0").unwrap(),
        }
    }

    /// A production environment with every outside service and secret set.
    fn complete(&self, db: &TestDatabase, keys: &std::path::Path, port: u16) -> Vec<(String, String)> {
        let smtp = self.smtp.local_addr().unwrap();
        [
            ("DATABASE_URL", db.url.clone()),
            (
                "JWT_PRIVATE_KEY_FILE",
                keys.join("jwt-ed25519.pem").display().to_string(),
            ),
            ("BIND_ADDR", format!("127.0.0.1:{port}")),
            ("PUBLIC_URL", "https://vendas.exemplo.com.br".to_owned()),
            ("STRIPE_SECRET_KEY", "sk_test_producao".to_owned()),
            ("STRIPE_API_BASE", self.stripe.uri()),
            ("PAYMENT_WEBHOOK_SECRET", "whsec_segredo_de_producao".to_owned()),
            ("CLICKSIGN_BASE_URL", self.clicksign.uri()),
            ("CLICKSIGN_ACCESS_TOKEN", "token-de-producao".to_owned()),
            (
                "CPF_STATUS_API_BASE",
                format!("{}/consulta-cpf-df/v1", self.serpro.uri()),
            ),
            ("CPF_STATUS_TOKEN_URL", format!("{}/token", self.serpro.uri())),
            ("CPF_STATUS_CONSUMER_KEY", "chave-de-producao".to_owned()),
            ("CPF_STATUS_CONSUMER_SECRET", "segredo-de-producao".to_owned()),
            (
                "SIGNATURE_CALLBACK_SECRET",
                "segredo-de-callback-de-producao".to_owned(),
            ),
            ("SMTP_URL", format!("smtps://vendas:senha@{smtp}")),
            (
                "HOOKS_ENCRYPTION_KEY",
                "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=".to_owned(),
            ),
            ("PRIVACY_CONTROLLER_NAME", "Seguradora Exemplo S.A.".to_owned()),
            ("PRIVACY_CONTROLLER_CNPJ", "11444777000161".to_owned()),
            ("PRIVACY_CONTROLLER_ADDRESS", "Rua Exemplo, 1, São Paulo/SP".to_owned()),
            ("PRIVACY_DPO_NAME", "Ana Encarregada".to_owned()),
            ("PRIVACY_DPO_EMAIL", "encarregado@exemplo.com.br".to_owned()),
            ("PRIVACY_DPO_CHANNEL", "https://exemplo.com.br/privacidade".to_owned()),
            ("WORKERS", "1".to_owned()),
            ("BCRYPT_COST", "4".to_owned()),
            ("RUST_LOG", "info".to_owned()),
            ("METRICS_ADDR", "off".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

/// A database, a key directory, the mock providers (kept alive by the caller) and a complete
/// production environment over them, on a free port.
async fn production(name: &str) -> (TestDatabase, PathBuf, Providers, Vec<(String, String)>) {
    let db = TestDatabase::new().await;
    let keys = keys(name);
    let providers = Providers::start().await;
    let env = providers.complete(&db, &keys, free_port());
    (db, keys, providers, env)
}

/// Runs a command to its end with exactly this environment (nothing inherited that could set
/// SALES_ENV): its exit status and what it wrote to both streams.
fn run(args: &[&str], env: &[(String, String)]) -> (bool, String) {
    let output = sales_api()
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn without(env: &[(String, String)], var: &str) -> Vec<(String, String)> {
    env.iter().filter(|(k, _)| k != var).cloned().collect()
}

fn with(env: &[(String, String)], var: &str, value: &str) -> Vec<(String, String)> {
    let mut env = without(env, var);
    env.push((var.to_owned(), value.to_owned()));
    env
}

/// What the process said of itself, without the lines of the requests it served.
fn start_lines(log: &str) -> impl Iterator<Item = &str> {
    log.lines().filter(|l| !l.contains("http_request"))
}

/// A server started in the background, its output going to a file.
struct Served {
    child: std::process::Child,
    log: PathBuf,
    base: String,
}

impl Served {
    async fn start(env: &[(String, String)], port: u16, log: PathBuf) -> Self {
        let file = std::fs::File::create(&log).unwrap();
        let child = sales_api()
            .arg("serve")
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        let served = Self {
            child,
            log,
            base: format!("http://127.0.0.1:{port}"),
        };
        let client = reqwest::Client::new();
        let started = Instant::now();
        while client
            .get(format!("{}/health/ready", served.base))
            .send()
            .await
            .map(|r| !r.status().is_success())
            .unwrap_or(true)
        {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the server did not start: {}",
                served.output()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        served
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn production_refuses_to_start_naming_each_missing_or_unsafe_setting() {
    let db = TestDatabase::new().await;
    let keys = keys("refusals");
    let providers = Providers::start().await;
    let complete = providers.complete(&db, &keys, free_port());
    let cases: Vec<(&str, Vec<(String, String)>)> = vec![
        ("STRIPE_SECRET_KEY", without(&complete, "STRIPE_SECRET_KEY")),
        ("PAYMENT_WEBHOOK_SECRET", without(&complete, "PAYMENT_WEBHOOK_SECRET")),
        (
            "CLICKSIGN_BASE_URL",
            without(&without(&complete, "CLICKSIGN_BASE_URL"), "CLICKSIGN_ACCESS_TOKEN"),
        ),
        (
            "SIGNATURE_CALLBACK_SECRET",
            without(&complete, "SIGNATURE_CALLBACK_SECRET"),
        ),
        ("SMTP_URL", without(&complete, "SMTP_URL")),
        ("SMTP_URL", with(&complete, "SMTP_URL", "smtp://127.0.0.1:2525")),
        (
            "CPF_STATUS_CONSUMER_KEY",
            without(
                &without(&complete, "CPF_STATUS_CONSUMER_KEY"),
                "CPF_STATUS_CONSUMER_SECRET",
            ),
        ),
        (
            "CPF_STATUS_CONSUMER_SECRET",
            without(&complete, "CPF_STATUS_CONSUMER_SECRET"),
        ),
        ("HOOKS_ENCRYPTION_KEY", without(&complete, "HOOKS_ENCRYPTION_KEY")),
        (
            "PUBLIC_URL",
            with(&complete, "PUBLIC_URL", "http://vendas.exemplo.com.br"),
        ),
        ("PUBLIC_URL", without(&complete, "PUBLIC_URL")),
        ("SALES_ENV", with(&complete, "SALES_ENV", "producao")),
        // Who answers for the person's data (decision 286): none of the six, or one missing.
        (
            "PRIVACY_CONTROLLER_NAME",
            [
                "PRIVACY_CONTROLLER_NAME",
                "PRIVACY_CONTROLLER_CNPJ",
                "PRIVACY_CONTROLLER_ADDRESS",
                "PRIVACY_DPO_NAME",
                "PRIVACY_DPO_EMAIL",
                "PRIVACY_DPO_CHANNEL",
            ]
            .iter()
            .fold(complete.clone(), |env, var| without(&env, var)),
        ),
        ("PRIVACY_DPO_EMAIL", without(&complete, "PRIVACY_DPO_EMAIL")),
        (
            "PRIVACY_CONTROLLER_CNPJ",
            with(&complete, "PRIVACY_CONTROLLER_CNPJ", "11444777000100"),
        ),
    ];
    for (var, env) in &cases {
        for command in ["serve", "worker"] {
            let (started, said) = run(&[command], env);
            assert!(!started, "{command} started without {var}: {said}");
            assert!(said.contains(var), "{command} without {var} did not name it: {said}");
        }
    }
    // Everything missing at once: one message naming each.
    let bare = vec![
        ("DATABASE_URL".to_owned(), db.url.clone()),
        (
            "JWT_PRIVATE_KEY_FILE".to_owned(),
            keys.join("jwt-ed25519.pem").display().to_string(),
        ),
    ];
    let (started, said) = run(&["serve"], &bare);
    assert!(!started);
    let message: Vec<&str> = said.lines().filter(|l| l.contains("recusa iniciar")).collect();
    assert_eq!(message.len(), 1, "{said}");
    for var in [
        "STRIPE_SECRET_KEY",
        "PAYMENT_WEBHOOK_SECRET",
        "CLICKSIGN_BASE_URL",
        "SIGNATURE_CALLBACK_SECRET",
        "SMTP_URL",
        "HOOKS_ENCRYPTION_KEY",
        "PUBLIC_URL",
        "PRIVACY_CONTROLLER_NAME",
        "PRIVACY_DPO_EMAIL",
    ] {
        assert!(message[0].contains(var), "{var} not named: {said}");
    }
    let _ = std::fs::remove_dir_all(keys);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_complete_production_configuration_starts_and_names_its_adapters() {
    let db = TestDatabase::new().await;
    let keys = keys("complete");
    let providers = Providers::start().await;
    let port = free_port();
    let env = providers.complete(&db, &keys, port);
    let served = Served::start(&env, port, keys.join("serve.log")).await;

    let sandbox = reqwest::get(format!("{}/sandbox/sign/qualquer", served.base))
        .await
        .unwrap();
    assert_eq!(
        sandbox.status(),
        reqwest::StatusCode::NOT_FOUND,
        "no sandbox pages in production"
    );
    let said = served.output();
    let adapters: Vec<&str> = said.lines().filter(|l| l.contains("adaptadores:")).collect();
    assert_eq!(adapters.len(), 1, "{said}");
    assert!(adapters[0].contains("INFO"), "{said}");
    assert!(
        adapters[0].contains("pagamento stripe, assinatura clicksign, e-mail smtp"),
        "{said}"
    );
    assert!(adapters[0].contains("situação do CPF serpro"), "{said}");
    assert!(
        !start_lines(&said).any(|l| l.contains("WARN")),
        "nothing to warn about at start: {said}"
    );
    for secret in [
        "sk_test_producao",
        "whsec_segredo_de_producao",
        "token-de-producao",
        "segredo-de-callback-de-producao",
        "segredo-de-producao",
        "senha",
        "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=",
    ] {
        assert!(!said.contains(secret), "a secret in the log: {secret}");
    }
    drop(served);
    let _ = std::fs::remove_dir_all(keys);
}

#[tokio::test(flavor = "multi_thread")]
async fn development_serves_the_sandboxes_and_warns_once_naming_each() {
    let db = TestDatabase::new().await;
    let keys = keys("development");
    let port = free_port();
    let env: Vec<(String, String)> = [
        ("SALES_ENV", "development".to_owned()),
        ("DATABASE_URL", db.url.clone()),
        (
            "JWT_PRIVATE_KEY_FILE",
            keys.join("jwt-ed25519.pem").display().to_string(),
        ),
        ("BIND_ADDR", format!("127.0.0.1:{port}")),
        ("MAIL_DIR", keys.join("mail").display().to_string()),
        ("WORKERS", "1".to_owned()),
        ("RUST_LOG", "info".to_owned()),
        ("METRICS_ADDR", "off".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let served = Served::start(&env, port, keys.join("serve.log")).await;
    let sandbox = reqwest::get(format!("{}/sandbox/sign/qualquer", served.base))
        .await
        .unwrap();
    assert_eq!(
        sandbox.status(),
        reqwest::StatusCode::NOT_FOUND,
        "an unknown key, from the sandbox page itself"
    );
    let body: serde_json::Value = sandbox.json().await.unwrap_or_default();
    assert_ne!(body["code"], "rota_nao_encontrada", "the sandbox route exists: {body}");

    let said = served.output();
    let adapters: Vec<&str> = said.lines().filter(|l| l.contains("adaptadores:")).collect();
    assert_eq!(adapters.len(), 1, "{said}");
    assert!(adapters[0].contains("pagamento sandbox, assinatura sandbox, e-mail files"));
    let warnings: Vec<&str> = start_lines(&said).filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "one WARN line: {said}");
    for sandbox in [
        "pagamento (sandbox)",
        "assinatura (sandbox",
        "e-mail (arquivos",
        "chave de webhooks gerada",
        "situação do CPF (sandbox",
    ] {
        assert!(warnings[0].contains(sandbox), "{sandbox} not named: {}", warnings[0]);
    }
    assert!(
        keys.join("hooks-encryption.key").exists(),
        "the generated key sits beside the token key"
    );
    drop(served);
    let _ = std::fs::remove_dir_all(keys);
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_demo_is_refused_in_production_and_loads_in_development() {
    let (_db, keys, _providers, env) = production("seed").await;
    let (seeded, said) = run(&["seed", "demo"], &env);
    assert!(!seeded, "{said}");
    assert!(said.contains("SALES_ENV=production"), "{said}");
    let (seeded, said) = run(&["seed", "demo"], &with(&env, "SALES_ENV", "development"));
    assert!(seeded, "{said}");
    assert!(said.contains("parceiro@demo.com.br"), "{said}");
    let _ = std::fs::remove_dir_all(keys);
}

#[tokio::test(flavor = "multi_thread")]
async fn config_check_prints_the_effective_configuration_masked_and_judges_it() {
    let (db, keys, _providers, env) = production("config-check").await;
    let (valid, said) = run(&["config", "check"], &env);
    assert!(valid, "{said}");
    assert!(said.contains("configuração válida (production)"), "{said}");
    assert!(said.contains("STRIPE_SECRET_KEY=*** (definida)"), "{said}");
    assert!(
        said.contains("BCRYPT_COST=4") && said.contains("HOOKS_LEASE_SECS=60"),
        "{said}"
    );
    for secret in [
        "sk_test_producao",
        "whsec_segredo_de_producao",
        "token-de-producao",
        ":senha@",
        "BQUFBQUF",
    ] {
        assert!(!said.contains(secret), "{secret} printed: {said}");
    }
    assert!(said.contains("SMTP_URL=smtps://vendas:***@127.0.0.1"), "{said}");
    let (valid, said) = run(
        &["config", "check"],
        &with(&env, "PUBLIC_URL", "http://vendas.exemplo.com.br"),
    );
    assert!(!valid && said.contains("PUBLIC_URL"), "{said}");
    let (valid, said) = run(&["config", "check"], &with(&env, "HOOKS_LEASE_SECS", "um minuto"));
    assert!(!valid && said.contains("HOOKS_LEASE_SECS"), "{said}");
    // Empty counts as unset: the default applies.
    let (valid, said) = run(&["config", "check"], &with(&env, "WORKERS", ""));
    assert!(valid && said.contains("WORKERS="), "{said}");

    // In development a .env in the working directory fills what the environment does not set.
    let dir = keys.join("projeto");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(".env"),
        "SALES_ENV=development\nBIND_ADDR=127.0.0.1:9999\nMAIL_FROM=\"Vendas <nao-responda@vendas.local>\"\n",
    )
    .unwrap();
    let output = sales_api()
        .args(["config", "check"])
        .current_dir(&dir)
        .env_clear()
        .env("DATABASE_URL", &db.url)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        said.contains("SALES_ENV=development") && said.contains("BIND_ADDR=127.0.0.1:9999"),
        "{said}"
    );
    assert!(said.contains("MAIL_FROM=Vendas <nao-responda@vendas.local>"), "{said}");
    let _ = std::fs::remove_dir_all(keys);
}
