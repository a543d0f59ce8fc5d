//! The closed lists of the contract: each value is spelled exactly as the spec writes it.

use crate::store::StoreError;
use crate::validation::{Rejection, trim_ascii};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A stored value that is none of its type's spellings: a broken invariant (a migration or a
/// hand edit wrote it), reported as an internal error naming the table, the column and the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("valor desconhecido em {table}.{column}: {value:?}")]
pub struct StoredValueError {
    pub table: &'static str,
    pub column: &'static str,
    pub value: String,
}

impl StoredValueError {
    pub fn new(table: &'static str, column: &'static str, value: &str) -> Self {
        tracing::error!(table, column, value, "valor armazenado desconhecido");
        Self {
            table,
            column,
            value: value.to_owned(),
        }
    }
}

impl From<StoredValueError> for StoreError {
    fn from(error: StoredValueError) -> Self {
        StoreError::Unexpected(error.to_string())
    }
}

/// Declares an enum whose values are the contract's spellings, with `parse`, `as_str` and the code
/// and message used when an input is none of them.
macro_rules! choice {
    ($(#[$meta:meta])* $name:ident, $code:literal, $label:literal, { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const CODE: &'static str = $code;
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn parse(input: &str) -> Result<Self, Rejection> {
                let input = trim_ascii(input);
                Self::ALL.iter().copied().find(|v| v.as_str() == input).ok_or_else(|| {
                    let allowed: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                    Rejection::new($code, format!("{} deve ser um de: {}", $label, allowed.join(", ")))
                })
            }

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// A value read back from `table.column`: exactly one of the spellings (stored values
            /// are never trimmed or guessed); anything else is a broken invariant naming where.
            pub fn from_stored(
                value: &str,
                table: &'static str,
                column: &'static str,
            ) -> Result<Self, StoredValueError> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == value)
                    .ok_or_else(|| StoredValueError::new(table, column, value))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        /// Read from a record the store hands in (the export's rows): exactly one of the
        /// spellings, as [`from_stored`](Self::from_stored) reads a column.
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let value = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == value)
                    .ok_or_else(|| serde::de::Error::unknown_variant(&value, &[$($text),+]))
            }
        }

        /// In the OpenAPI document: a string with the contract's spellings as its enum.
        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some(Self::ALL.iter().map(|v| v.as_str())))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {}

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

choice!(
    /// The system a user signs in to; each user may use some of them.
    Application, "aplicacao_invalida", "aplicacao", {
        Ecommerce => "ECOMMERCE",
        Partner => "PARCEIRO",
        BackOffice => "BACKOFFICE",
    }
);

choice!(
    /// Where a seller's registration of a customer stands (only `NOVO` so far: the seed's status).
    RegistrationStatus, "status_cadastro_invalido", "status do cadastro", {
        New => "NOVO",
    }
);

choice!(Gender, "sexo_invalido", "sexo", {
    Male => "Masculino",
    Female => "Feminino",
});

choice!(MaritalStatus, "estado_civil_invalido", "estado civil", {
    Single => "Solteiro",
    Married => "Casado",
    Separated => "Separado",
    Divorced => "Divorciado",
    Widowed => "Viúvo",
});

choice!(
    /// How a standard proposal is paid; each brings its own required fields.
    PaymentType, "tipo_pagamento_invalido", "tipo de pagamento", {
        AccountDebit => "DÉBITO EM CONTA",
        PayrollDiscount => "DESCONTO EM FOLHA",
        PixAutomatic => "PIX AUTOMÁTICO",
    }
);

choice!(
    /// The channel by which the client is sent the signing link.
    ShippingType, "tipo_envio_invalido", "tipo de envio", {
        Sms => "sms",
        Whatsapp => "whatsapp",
    }
);

choice!(
    /// What the payroll discount's number identifies.
    SheetType, "tipo_folha_invalido", "tipo", {
        Benefit => "BENEFÍCIO",
        Registration => "MATRÍCULA",
    }
);

choice!(
    /// How a beneficiary is related to the insured (printed on the proposal and the certificate).
    Kinship, "parentesco_invalido", "parentesco", {
        Spouse => "Cônjuge",
        Partner => "Companheiro",
        Child => "Filho",
        Father => "Pai",
        Mother => "Mãe",
        Sibling => "Irmão",
        Grandchild => "Neto",
        Other => "Outro",
    }
);

choice!(
    /// Why the back office refused or cancelled, as a seller may read it (decision 283): the
    /// words themselves are the back office's and the customer's, and can be health data (LGPD
    /// art. 11), so what reaches a seller is one of these codes.
    ReasonCategory, "categoria_motivo_invalida", "reasonCategory", {
        Health => "saude",
        Documentation => "documentacao",
        FinancialRisk => "risco_financeiro",
        InexactDeclaration => "declaracao_inexata",
        CustomerRequest => "a_pedido",
        Other => "outros",
    }
);

choice!(
    /// The lifecycle states of a proposal. Finished ones (`APROVADO`, `REPROVADO`, `CANCELADO`,
    /// `EXPIRADO`) free the customer to open another proposal for the product.
    ProposalStatus, "status_invalido", "status", {
        New => "NOVO",
        AwaitingSignature => "AGUARDANDO ASSINATURA",
        InAnalysis => "EM ANÁLISE",
        Approved => "APROVADO",
        Rejected => "REPROVADO",
        Cancelled => "CANCELADO",
        Expired => "EXPIRADO",
    }
);

choice!(
    /// Whether an event subscription receives events (`ATIVO`) or not (`INATIVO`).
    HookStatus, "status_webhook_invalido", "status", {
        Active => "ATIVO",
        Inactive => "INATIVO",
    }
);

choice!(
    /// Where one delivery of an event to a subscription stands: waiting for its next attempt
    /// (or in flight), delivered, every scheduled attempt failed, or stopped (the subscription was
    /// deleted or its receiver answered 410).
    DeliveryState, "estado_entrega_invalido", "estado da entrega", {
        Pending => "PENDENTE",
        Delivered => "ENTREGUE",
        Exhausted => "ESGOTADA",
        Cancelled => "CANCELADA",
    }
);

choice!(
    /// The catalogue of event kinds a subscription may ask for: a proposal's status change, its
    /// creation (routes 5 and 6), its sending for signature and each resend (route 12), each
    /// party's signature or refusal, a change of its subscription's state on the payment platform,
    /// a request for documents and its answer (the acceptance clock suspended and resumed), a
    /// charge or the billing's standing, a notice to the customer sent or its receipt learned, the
    /// contract's term renewed; and the test event sent on request.
    EventKind, "evento_desconhecido", "evento", {
        StatusChange => "ALTERAÇÃO_STATUS",
        ProposalCreated => "PROPOSTA_CRIADA",
        ProposalSent => "PROPOSTA_ENVIADA",
        SignatureRecorded => "ASSINATURA_REGISTRADA",
        PaymentChanged => "PAGAMENTO_ALTERADO",
        PendingOpened => "PENDENCIA_ABERTA",
        PendingAnswered => "PENDENCIA_RESPONDIDA",
        ChargeChanged => "COBRANCA_ALTERADA",
        NoticeRecorded => "AVISO_REGISTRADO",
        TermRenewed => "VIGENCIA_RENOVADA",
        Test => "TESTE",
    }
);

choice!(
    /// Where one charge of a contract stands (issue 46): open until paid, failed once its last
    /// attempt failed, cancelled when the contract ended before it was paid.
    ChargeStatus, "status_cobranca_invalido", "status da cobrança", {
        Open => "aberta",
        Paid => "paga",
        Failed => "falhou",
        Cancelled => "cancelada",
    }
);

choice!(
    /// Where a contract's billing stands: up to date, late past its grace days, or suspended
    /// after its product's unpaid days (resumed when paid).
    BillingStatus, "situacao_cobranca_invalida", "situação da cobrança", {
        UpToDate => "em_dia",
        Late => "em_atraso",
        Suspended => "suspenso",
    }
);

choice!(
    /// Which door a proposal came in by; it decides who sees it: route 5, a partner's
    /// representative (`PARCEIRO`), or route 6, the online shop (`ECOMMERCE`).
    Flow, "fluxo_invalido", "fluxo", {
        Partner => "PARCEIRO",
        Ecommerce => "ECOMMERCE",
    }
);

choice!(
    /// Where one party's signature stands with the provider.
    PartyStatus, "status_assinatura_invalido", "status da assinatura", {
        Pending => "PENDENTE",
        Signed => "ASSINADO",
        Refused => "RECUSADO",
    }
);

impl ProposalStatus {
    /// The statuses a proposal is still open in (the one-open-proposal rule's set).
    pub fn open() -> impl Iterator<Item = ProposalStatus> {
        Self::ALL.iter().copied().filter(|s| !s.is_finished())
    }

    pub fn is_finished(self) -> bool {
        matches!(
            self,
            ProposalStatus::Approved | ProposalStatus::Rejected | ProposalStatus::Cancelled | ProposalStatus::Expired
        )
    }
}

choice!(
    /// The 27 federative units.
    Uf, "uf_invalida", "estado", {
        Ac => "AC", Al => "AL", Ap => "AP", Am => "AM", Ba => "BA", Ce => "CE", Df => "DF",
        Es => "ES", Go => "GO", Ma => "MA", Mt => "MT", Ms => "MS", Mg => "MG", Pa => "PA",
        Pb => "PB", Pr => "PR", Pe => "PE", Pi => "PI", Rj => "RJ", Rn => "RN", Rs => "RS",
        Ro => "RO", Rr => "RR", Sc => "SC", Sp => "SP", Se => "SE", To => "TO",
    }
);

impl Uf {
    /// UFs are accepted in any case and stored upper-cased.
    pub fn parse_any_case(input: &str) -> Result<Self, Rejection> {
        Self::parse(&trim_ascii(input).to_ascii_uppercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_spellings_only() {
        assert_eq!(PaymentType::parse("DÉBITO EM CONTA"), Ok(PaymentType::AccountDebit));
        assert_eq!(
            PaymentType::parse("DEBITO EM CONTA").unwrap_err().code,
            "tipo_pagamento_invalido"
        );
        assert_eq!(MaritalStatus::parse("Viúvo"), Ok(MaritalStatus::Widowed));
        assert_eq!(Gender::parse("masculino").unwrap_err().code, "sexo_invalido");
        assert_eq!(Application::parse("PARCEIRO"), Ok(Application::Partner));
        assert_eq!(ShippingType::parse("email").unwrap_err().code, "tipo_envio_invalido");
    }

    #[test]
    fn twenty_seven_ufs_in_any_case() {
        assert_eq!(Uf::ALL.len(), 27);
        assert_eq!(Uf::parse_any_case("sp"), Ok(Uf::Sp));
        assert_eq!(Uf::parse_any_case("XX").unwrap_err().code, "uf_invalida");
    }

    #[test]
    fn serialises_as_the_contract_spelling() {
        assert_eq!(serde_json_like(PaymentType::PayrollDiscount), "DESCONTO EM FOLHA");
    }

    #[test]
    fn a_stored_value_is_read_exactly_or_named_as_broken() {
        assert_eq!(
            ProposalStatus::from_stored("EM ANÁLISE", "proposals", "status"),
            Ok(ProposalStatus::InAnalysis)
        );
        let error = ProposalStatus::from_stored(" NOVO", "proposals", "status").unwrap_err();
        assert_eq!(error.to_string(), "valor desconhecido em proposals.status: \" NOVO\"");
        assert_eq!(
            StoreError::from(error),
            StoreError::Unexpected("valor desconhecido em proposals.status: \" NOVO\"".into())
        );
    }

    fn serde_json_like(p: PaymentType) -> String {
        p.to_string()
    }
}
