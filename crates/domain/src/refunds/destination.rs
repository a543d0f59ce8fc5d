//! Where a refund to pay goes (issue 65): the customer's Pix key, or a bank account of theirs,
//! recorded by the seller that owns the proposal or by the back office. The finance team pays
//! every refund to pay of the contract there, and checks at the bank that its holder is the
//! customer (a Pix key's holder is shown by the payer's bank before the transfer).

use crate::contract::formats::{date, reais};
use crate::input::{Field, Reading, TextOrNumber};
use crate::refunds::RefundRecord;
use crate::validation::{Rejection, Violations, trim_ascii};
use crate::values::cpf::Cpf;
use crate::values::{BankAccount, CellPhone, Email, Landline};

pub const PIX_KEY_FORMAT: &str = "chave_pix_formato";
pub const PIX_KEY_HOLDER: &str = "chave_pix_titular";
pub const ACCOUNT_TYPE: &str = "tipo_conta";
pub const ONE_DESTINATION: &str = "destino_reembolso";

/// The longest e-mail a Pix key may be (the DICT's limit).
pub const PIX_EMAIL_MAX: usize = 77;

/// A Pix key in the DICT's own form: a CPF's 11 digits, an e-mail, a phone as `+55DDNUMBER`, or
/// a random key (EVP, a UUID in lower case). A CNPJ key is a company's: a customer (a person)
/// has none of their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PixKey {
    Cpf(Cpf),
    Email(Email),
    Phone(String),
    Random(String),
}

impl PixKey {
    /// Reads a key as typed: the form tells its kind (`+55…` a phone, `@` an e-mail, a UUID a
    /// random key, 11 digits or `000.000.000-00` a CPF).
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let key = trim_ascii(input);
        let invalid = || {
            Rejection::new(
                PIX_KEY_FORMAT,
                "chave Pix deve ser um CPF, um e-mail, um celular no formato +5511912345678 ou uma chave aleatória",
            )
        };
        if let Some(number) = key.strip_prefix("+55") {
            let digits = number.bytes().all(|b| b.is_ascii_digit());
            let phone = CellPhone::parse(number).is_ok() || Landline::parse(number).is_ok();
            if !(digits && phone) {
                return Err(invalid());
            }
            return Ok(Self::Phone(key.to_owned()));
        }
        if key.contains('@') {
            if key.len() > PIX_EMAIL_MAX {
                return Err(Rejection::new(
                    PIX_KEY_FORMAT,
                    format!("chave Pix de e-mail tem até {PIX_EMAIL_MAX} caracteres"),
                ));
            }
            return Email::parse(key).map(Self::Email).map_err(|_| invalid());
        }
        if is_uuid(key) {
            return Ok(Self::Random(key.to_ascii_lowercase()));
        }
        let digits: String = key.chars().filter(char::is_ascii_digit).collect();
        if digits.len() == 14 {
            return Err(Rejection::new(
                PIX_KEY_HOLDER,
                "chave Pix de CNPJ é de uma empresa: o reembolso vai para uma chave do cliente",
            ));
        }
        if digits.len() == 11 && key.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-') {
            return Cpf::parse(key).map(Self::Cpf);
        }
        Err(invalid())
    }

    /// The kind, as stored and answered.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Cpf(_) => "cpf",
            Self::Email(_) => "email",
            Self::Phone(_) => "telefone",
            Self::Random(_) => "aleatoria",
        }
    }

    /// The key as the DICT knows it (what the finance team types at the bank).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Cpf(cpf) => cpf.as_str(),
            Self::Email(email) => email.as_str(),
            Self::Phone(key) | Self::Random(key) => key,
        }
    }

    /// Enough of the key for the customer to recognise it, safe to answer and to e-mail.
    pub fn masked(&self) -> String {
        match self {
            Self::Cpf(cpf) => format!("CPF {}", cpf.masked()),
            Self::Email(email) => format!("e-mail {}", email.masked()),
            Self::Phone(key) => format!("celular +55 ({}) *****-{}", &key[3..5], &key[key.len() - 4..]),
            Self::Random(key) => format!("chave aleatória ****{}", &key[key.len() - 4..]),
        }
    }
}

fn is_uuid(key: &str) -> bool {
    let groups: Vec<&str> = key.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// What kind of account receives a transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountKind {
    Checking,
    Savings,
    Payment,
}

impl AccountKind {
    pub const ALL: [AccountKind; 3] = [Self::Checking, Self::Savings, Self::Payment];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Checking => "corrente",
            Self::Savings => "poupanca",
            Self::Payment => "pagamento",
        }
    }

    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let input = trim_ascii(input).to_lowercase();
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == input || (input == "poupança" && *k == Self::Savings))
            .ok_or_else(|| Rejection::new(ACCOUNT_TYPE, "tipo de conta deve ser corrente, poupanca ou pagamento"))
    }
}

/// A bank account of the customer's, for a transfer (TED or Pix by account details).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferAccount {
    pub account: BankAccount,
    pub kind: AccountKind,
}

/// Where the refunds to pay of a contract go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundDestination {
    Pix(PixKey),
    Account(TransferAccount),
}

impl RefundDestination {
    /// `pix` or `conta`, as stored and answered.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Pix(_) => "pix",
            Self::Account(_) => "conta",
        }
    }

    /// How the customer is told where the money goes (nothing that would let someone else use
    /// it: the key's or account's last characters only).
    pub fn described(&self) -> String {
        match self {
            Self::Pix(key) => format!("Pix para a chave {}", key.masked()),
            Self::Account(TransferAccount { account, kind }) => {
                let number = &account.account;
                let shown: String = number.chars().skip(number.chars().count().saturating_sub(3)).collect();
                format!(
                    "transferência para a conta {} do banco {}, agência {}, terminada em {shown}",
                    kind.as_str(),
                    account.bank,
                    account.agency
                )
            }
        }
    }

    /// The destination whole, for the finance team that pays it.
    pub fn for_payment(&self) -> String {
        match self {
            Self::Pix(key) => format!("Pix {} {}", key.kind(), key.as_str()),
            Self::Account(TransferAccount { account, kind }) => format!(
                "conta {} banco {} agência {} conta {}",
                kind.as_str(),
                account.bank,
                account.agency,
                account.account
            ),
        }
    }
}

crate::wire_body! {
    /// The body of `PUT /proposal/{identificador}/refund-destination`: exactly one of `pixKey` or
    /// `refundAccount`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "Onde o cliente recebe os reembolsos a pagar do contrato: exatamente um de `pixKey` ou `refundAccount`, do próprio cliente."
        )
    )]
    pub struct RefundDestinationBody => RefundDestinationMembers {
        /// Chave Pix do cliente: CPF (o dele), e-mail, celular no formato `+5511912345678` ou chave
        /// aleatória.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "cliente@exemplo.com.br"))]
        pix_key as "pixKey": Field<String>,
        /// Uma conta do cliente, para transferência.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<RefundAccountBody>))]
        refund_account as "refundAccount": Field<RefundAccountBody>,
    }
}

crate::wire_body! {
    /// `refundAccount`: the customer's bank account.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Conta do cliente para a transferência do reembolso.")
    )]
    pub struct RefundAccountBody => RefundAccountMembers {
        /// Código de 3 dígitos do banco (COMPE).
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{3}$", example = "001"))]
        bank: Field<TextOrNumber>,
        /// Até 5 dígitos, com dígito verificador opcional (1234-5).
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,5}(-[0-9X])?$", example = "1234-5"))]
        agency: Field<TextOrNumber>,
        /// Até 12 dígitos, com dígito verificador opcional (12345-6).
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,12}(-[0-9X])?$", example = "12345-6"))]
        account: Field<TextOrNumber>,
        /// `corrente`, `poupanca` ou `pagamento`.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "corrente"))]
        r#type as "type": Field<String>,
    }
}

impl RefundDestinationBody {
    /// The destination, every bad member named.
    pub fn read(self) -> Result<RefundDestination, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let m = self.named();
        let ((key_name, key), (account_name, account)) = (m.pix_key, m.refund_account);
        let destination = match (key, account) {
            (Field::Missing, Field::Missing) | (Field::Given(_), Field::Given(_)) => {
                r.add(
                    key_name,
                    ONE_DESTINATION,
                    format!("informe exatamente um destino: {key_name} ou {account_name}"),
                );
                None
            }
            (key, Field::Missing) => r.parse(key_name, key, PixKey::parse).map(RefundDestination::Pix),
            (Field::Missing, account) => r.object(account_name, account, |a, r| {
                let a = a.named();
                let bank = r.text_or_number(a.bank.0, a.bank.1);
                let agency = r.text_or_number(a.agency.0, a.agency.1);
                let number = r.text_or_number(a.account.0, a.account.1);
                let kind = r.parse(a.r#type.0, a.r#type.1, AccountKind::parse);
                let (v, prefix) = r.at_this_level();
                let account =
                    BankAccount::parse(v, prefix, bank.as_deref(), agency.as_deref(), number.as_deref(), None);
                Some(RefundDestination::Account(TransferAccount {
                    account: account?,
                    kind: kind?,
                }))
            }),
            // One of them of the wrong type, the other absent or wrong too.
            (key, account) => {
                r.parse(key_name, key, PixKey::parse);
                r.object(account_name, account, |_, _| None::<()>);
                None
            }
        };
        match destination {
            Some(destination) if v.is_empty() => Ok(destination),
            _ => Err(v),
        }
    }
}

/// A refund to pay as the customer reads it: `R$ 12,34 até 15/12/2026`.
pub fn owed_line(refund: &RefundRecord) -> String {
    match refund.due_on {
        Some(due) => format!("{} até {}", reais(refund.amount), date(due)),
        None => reais(refund.amount),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: serde_json::Value) -> Result<RefundDestination, Vec<(String, &'static str)>> {
        let body: RefundDestinationBody = crate::input::body(body).unwrap();
        body.read()
            .map_err(|v| v.errors().iter().map(|e| (e.field.clone(), e.code)).collect())
    }

    #[test]
    fn each_kind_of_key_is_told_by_its_form() {
        for (typed, kind, stored) in [
            ("529.982.247-25", "cpf", "52998224725"),
            (" Cliente@Exemplo.com.br ", "email", "cliente@exemplo.com.br"),
            ("+5511912345678", "telefone", "+5511912345678"),
            (
                "123E4567-E89B-12D3-A456-426614174000",
                "aleatoria",
                "123e4567-e89b-12d3-a456-426614174000",
            ),
        ] {
            let key = PixKey::parse(typed).unwrap();
            assert_eq!((key.kind(), key.as_str()), (kind, stored), "{typed}");
        }
    }

    #[test]
    fn keys_out_of_the_dicts_forms_are_refused() {
        for (typed, code) in [
            ("11912345678", "cpf_digito"),
            ("+551191234567", PIX_KEY_FORMAT),
            ("+5500912345678", PIX_KEY_FORMAT),
            ("+1 202 555 0100", PIX_KEY_FORMAT),
            ("11.222.333/0001-81", PIX_KEY_HOLDER),
            ("chave", PIX_KEY_FORMAT),
            ("a@b", PIX_KEY_FORMAT),
        ] {
            assert_eq!(PixKey::parse(typed).unwrap_err().code, code, "{typed}");
        }
        let long = format!("{}@exemplo.com", "a".repeat(70));
        assert_eq!(PixKey::parse(&long).unwrap_err().code, PIX_KEY_FORMAT);
    }

    #[test]
    fn what_the_customer_reads_hides_the_key() {
        let key = PixKey::parse("+5511912345678").unwrap();
        assert_eq!(key.masked(), "celular +55 (11) *****-5678");
        let cpf = RefundDestination::Pix(PixKey::parse("52998224725").unwrap());
        assert!(!cpf.described().contains("529982"));
        let account = read(
            json!({"refundAccount": {"bank": "001", "agency": "1234-5", "account": "98765-4", "type": "poupança"}}),
        )
        .unwrap();
        assert_eq!(
            account.described(),
            "transferência para a conta poupanca do banco 001, agência 1234-5, terminada em 5-4"
        );
        assert_eq!(
            account.for_payment(),
            "conta poupanca banco 001 agência 1234-5 conta 98765-4"
        );
    }

    #[test]
    fn exactly_one_destination_is_taken() {
        assert_eq!(read(json!({})), Err(vec![("pixKey".into(), ONE_DESTINATION)]));
        assert_eq!(
            read(json!({"pixKey": "+5511912345678", "refundAccount": {}})),
            Err(vec![("pixKey".into(), ONE_DESTINATION)])
        );
        assert_eq!(
            read(json!({"refundAccount": {"bank": "1", "agency": "1234", "account": "12", "type": "outra"}})),
            Err(vec![
                ("refundAccount.type".into(), ACCOUNT_TYPE),
                ("refundAccount.bank".into(), "banco_formato"),
            ])
        );
        assert!(matches!(
            read(json!({"pixKey": 123})),
            Err(errors) if errors[0].0 == "pixKey"
        ));
    }
}
