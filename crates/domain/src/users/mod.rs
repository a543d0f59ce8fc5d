//! Creating users: there is no sign-up route; operators create users with `sales-api user create`.

use crate::access::{AccessError, Operation, authorize};
use crate::auth::model::{Principal, UserId};
use crate::auth::password::{PasswordHash, PasswordPolicy};
use crate::auth::ports::{HashError, PasswordHasher};
use crate::input::{Field, Reading};
use crate::store::StoreError;
use crate::validation::{Violations, codes};
use crate::values::{Application, Cnpj, Cpf, Email, FullName};
use async_trait::async_trait;
use std::sync::Arc;

/// The fields of a new user, as given (the command line or a seed).
#[derive(Debug, Clone, Default)]
pub struct NewUserInput {
    pub email: String,
    pub password: String,
    pub applications: Vec<String>,
    pub name: Option<String>,
    pub cpf: Option<String>,
    /// For `PARCEIRO` users: the partner they represent, created when new.
    pub partner_cnpj: Option<String>,
    pub partner_name: Option<String>,
}

/// A new user whose fields are valid and whose password is hashed.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub email: Email,
    pub password_hash: PasswordHash,
    pub applications: Vec<Application>,
    pub name: Option<FullName>,
    pub cpf: Option<Cpf>,
    pub partner: Option<PartnerRef>,
}

#[derive(Debug, Clone)]
pub struct PartnerRef {
    pub cnpj: Cnpj,
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CreateUserError {
    #[error("{0}")]
    Invalid(Violations),
    #[error("já existe um usuário com este e-mail")]
    DuplicateEmail,
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait UserWriter: Send + Sync {
    /// Stores the user with its applications (and its partner link), all or nothing. Answers
    /// `DuplicateEmail` when the e-mail is taken.
    async fn create(&self, user: &NewUser) -> Result<UserId, CreateUserError>;
}

pub struct CreateUser {
    pub writer: Arc<dyn UserWriter>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub policy: PasswordPolicy,
}

impl CreateUser {
    pub async fn execute(&self, input: NewUserInput) -> Result<UserId, CreateUserError> {
        let mut v = Violations::new();
        let email = v.check("email", Email::parse(&input.email));
        let password = v.check("password", self.policy.check(&input.password));
        let applications = parse_applications(&mut v, &input.applications);
        let name = input.name.as_deref().and_then(|n| v.check("name", FullName::parse(n)));
        let cpf = input.cpf.as_deref().and_then(|c| v.check("cpf", Cpf::parse(c)));
        let partner = input
            .partner_cnpj
            .as_deref()
            .and_then(|c| v.check("partner", Cnpj::parse(c)));
        if applications.contains(&Application::Partner) && input.partner_cnpj.is_none() {
            v.add(
                "partner",
                codes::REQUIRED,
                "usuário PARCEIRO precisa do CNPJ do parceiro que representa",
            );
        }
        v.into_result().map_err(CreateUserError::Invalid)?;
        let (Some(email), Some(password)) = (email, password) else {
            return Err(CreateUserError::Invalid(Violations::new()));
        };
        let password_hash = self.hasher.hash(&password).await?;
        let user = NewUser {
            email,
            password_hash,
            applications,
            name,
            cpf,
            partner: partner.map(|cnpj| PartnerRef {
                cnpj,
                name: input.partner_name.clone(),
            }),
        };
        self.writer.create(&user).await
    }
}

/// What an operator changes on an existing user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdministerUserError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("{0}")]
    Invalid(Violations),
    #[error("nenhum usuário com este e-mail")]
    NotFound,
    /// PARCEIRO asked for a user that represents no partner.
    #[error("usuário PARCEIRO precisa representar um parceiro; crie-o com --partner")]
    NoPartner,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait UserAdministration: Send + Sync {
    /// Disables the user and, in the same step, moves its credentials on, so that every session
    /// it has ends on every instance. Answers `NotFound` for an unknown e-mail.
    async fn disable(&self, email: &Email) -> Result<(), AdministerUserError>;
    /// Replaces the user's applications and moves its credentials on (every session ends: its
    /// tokens name applications it may no longer use). `NoPartner` when PARCEIRO is asked for a
    /// user that represents no partner.
    async fn set_applications(&self, email: &Email, applications: &[Application]) -> Result<(), AdministerUserError>;
    /// Pins the user's credential to a contract version (`None`: never pinned again), read by its
    /// requests that name none on every instance from its next request on; its sessions go on.
    async fn pin_version<'a>(&self, email: &Email, version: Option<&'a str>) -> Result<(), AdministerUserError>;
}

/// The operator's changes to users (`sales-api user disable`, `sales-api user update`).
pub struct AdministerUsers {
    pub store: Arc<dyn UserAdministration>,
}

impl AdministerUsers {
    pub async fn disable(&self, email: &str) -> Result<(), AdministerUserError> {
        let mut v = Violations::new();
        let email = v.check("email", Email::parse(email));
        v.into_result().map_err(AdministerUserError::Invalid)?;
        let Some(email) = email else {
            return Err(AdministerUserError::Invalid(Violations::new()));
        };
        self.store.disable(&email).await
    }

    pub async fn set_applications(&self, email: &str, applications: &[String]) -> Result<(), AdministerUserError> {
        let mut v = Violations::new();
        let email = v.check("email", Email::parse(email));
        let applications = parse_applications(&mut v, applications);
        v.into_result().map_err(AdministerUserError::Invalid)?;
        let Some(email) = email else {
            return Err(AdministerUserError::Invalid(Violations::new()));
        };
        self.store.set_applications(&email, &applications).await
    }

    /// `version` is a contract version's name the caller has checked (the HTTP edge knows them).
    pub async fn pin_version(&self, email: &str, version: Option<&str>) -> Result<(), AdministerUserError> {
        let mut v = Violations::new();
        let email = v.check("email", Email::parse(email));
        v.into_result().map_err(AdministerUserError::Invalid)?;
        let Some(email) = email else {
            return Err(AdministerUserError::Invalid(Violations::new()));
        };
        self.store.pin_version(&email, version).await
    }

    /// The back office pins a user's credential to a contract version (`None`: unpins it).
    pub async fn pin_version_as(
        &self,
        principal: &Principal,
        email: &str,
        version: Option<&str>,
    ) -> Result<(), AdministerUserError> {
        authorize(principal, Operation::PinContractVersion)?;
        self.pin_version(email, version).await
    }
}

crate::wire_body! {
    /// The body of `PUT /users/{email}/version`: the contract version the user's credential reads.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "A versão do contrato que a credencial do usuário passa a ler.")
    )]
    pub struct VersionPinBody => VersionPinMembers {
        /// O nome de uma versão do contrato (`2026-11-21`, `2026-11-29`, `2026-12-01`).
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "2026-12-01"))]
        version: Field<String>,
    }
}

impl VersionPinBody {
    /// The version's name as sent, trimmed (which names exist, the HTTP edge knows).
    pub fn read(self) -> Result<String, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let version = r.text_within(m.version.0, m.version.1, VERSION_NAME_MAX_CHARS);
        match version {
            Some(version) if v.is_empty() => Ok(version),
            _ => Err(v),
        }
    }
}

/// A version's name is a date (`2026-12-01`); anything much longer is not one.
const VERSION_NAME_MAX_CHARS: usize = 32;

/// Each of `given` as an application, duplicates dropped; at least one.
fn parse_applications(v: &mut Violations, given: &[String]) -> Vec<Application> {
    let mut applications = Vec::new();
    for (i, app) in given.iter().enumerate() {
        if let Some(app) = v.check(&format!("application[{i}]"), Application::parse(app))
            && !applications.contains(&app)
        {
            applications.push(app);
        }
    }
    if given.is_empty() {
        v.add("application", codes::REQUIRED, "informe ao menos uma aplicação");
    }
    applications
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::ports::MockPasswordHasher;

    fn service(writer: MockUserWriter) -> CreateUser {
        let mut hasher = MockPasswordHasher::new();
        hasher.expect_hash().returning(|_| Ok(PasswordHash("$2b$12$x".into())));
        CreateUser {
            writer: Arc::new(writer),
            hasher: Arc::new(hasher),
            policy: PasswordPolicy::default(),
        }
    }

    #[tokio::test]
    async fn reports_every_bad_field_at_once_and_stores_nothing() {
        let mut writer = MockUserWriter::new();
        writer.expect_create().never();
        let input = NewUserInput {
            email: "nope".into(),
            password: "fraca".into(),
            applications: vec!["PARCEIRO".into(), "LOJA".into()],
            cpf: Some("11111111111".into()),
            ..Default::default()
        };
        let Err(CreateUserError::Invalid(v)) = service(writer).execute(input).await else {
            panic!("expected invalid")
        };
        let fields: Vec<_> = v.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec!["email", "password", "application[1]", "cpf", "partner"]);
    }

    #[tokio::test]
    async fn stores_a_valid_user_with_its_hash_and_partner() {
        let mut writer = MockUserWriter::new();
        writer
            .expect_create()
            .withf(|u| {
                u.password_hash.0 == "$2b$12$x"
                    && u.applications == vec![Application::Partner]
                    && u.partner.as_ref().is_some_and(|p| p.cnpj.as_str() == "11222333000181")
            })
            .returning(|_| Ok(42));
        let input = NewUserInput {
            email: "rep@parceiro.com.br".into(),
            password: "Vendas#2026".into(),
            applications: vec!["PARCEIRO".into(), "PARCEIRO".into()],
            partner_cnpj: Some("11.222.333/0001-81".into()),
            ..Default::default()
        };
        assert_eq!(service(writer).execute(input).await, Ok(42));
    }

    #[tokio::test]
    async fn an_update_names_each_bad_field_and_changes_nothing() {
        let mut store = MockUserAdministration::new();
        store.expect_set_applications().never();
        let admin = AdministerUsers { store: Arc::new(store) };
        let Err(AdministerUserError::Invalid(v)) = admin.set_applications("nope", &["LOJA".into()]).await else {
            panic!("expected invalid")
        };
        let fields: Vec<_> = v.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec!["email", "application[0]"]);
        let Err(AdministerUserError::Invalid(v)) = admin.set_applications("ana@exemplo.com.br", &[]).await else {
            panic!("expected invalid")
        };
        assert_eq!(v.errors()[0].field, "application");
    }

    #[tokio::test]
    async fn an_update_passes_the_applications_once_each() {
        let mut store = MockUserAdministration::new();
        store
            .expect_set_applications()
            .withf(|e, apps| e.as_str() == "ana@exemplo.com.br" && apps == [Application::BackOffice])
            .times(1)
            .returning(|_, _| Ok(()));
        let admin = AdministerUsers { store: Arc::new(store) };
        let apps = vec!["BACKOFFICE".to_owned(), "BACKOFFICE".to_owned()];
        assert_eq!(admin.set_applications("Ana@Exemplo.com.br", &apps).await, Ok(()));
    }
}
