//! The contract's shapes: every answer body of routes 3 to 11 with the spec's field names, built
//! from the domain's records. Timestamps are ISO 8601 UTC with milliseconds.

use chrono::{DateTime, Utc};
use domain::catalog::model::{BillingGroup, Product};
use domain::customers::CustomerRecord;
use domain::proposals::model::{ProposalDetail, ProposalRecord, birthday_text};
use domain::values::{CellPhone, Flow, Landline, PartyStatus, PaymentType, ProposalStatus, ShippingType};
use serde::Serialize;
use utoipa::ToSchema;

/// `2026-11-22T05:47:11.123Z`: UTC, milliseconds.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Phones are stored as digits and shown as the spec writes them.
fn cell_phone(digits: &Option<String>) -> Option<String> {
    digits.as_deref().map(|d| {
        CellPhone::parse(d)
            .map(|p| p.formatted())
            .unwrap_or_else(|_| d.to_owned())
    })
}

fn landline(digits: &Option<String>) -> Option<String> {
    digits.as_deref().map(|d| {
        Landline::parse(d)
            .map(|p| p.formatted())
            .unwrap_or_else(|_| d.to_owned())
    })
}

/// Route 3's record (the spec's customer record, exactly its members).
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerRecordDto {
    pub id: i64,
    pub alterado_por: String,
    pub criado_em: String,
    pub alterado_em: String,
    pub nome_completo: String,
    pub cpf: String,
    /// `YYYY-MM-DD`, whatever form was sent.
    pub data_nascimento: String,
    pub celular: Option<String>,
    pub telefone_fixo: Option<String>,
    pub email: Option<String>,
    /// Cents.
    pub salario: Option<i64>,
    pub trabalhando: bool,
    pub servidor_publico: bool,
    pub pep: bool,
    pub afastado: bool,
    pub medicamento: bool,
    pub medicamento_descricao: Option<String>,
    pub key_cliente: Option<String>,
    #[schema(example = "NOVO")]
    pub status: String,
    pub e_analfabeto: bool,
    pub codigo_jave: Option<String>,
    pub cargo_politico: Option<String>,
    pub id_endereco: Option<i64>,
    pub ecommerce_customer_id: Option<String>,
}

impl From<CustomerRecord> for CustomerRecordDto {
    fn from(c: CustomerRecord) -> Self {
        Self {
            id: c.id,
            alterado_por: c.changed_by,
            criado_em: iso(c.created_at),
            alterado_em: iso(c.updated_at),
            nome_completo: c.full_name,
            cpf: c.cpf,
            data_nascimento: c.birth_date.format("%Y-%m-%d").to_string(),
            celular: cell_phone(&c.cell_phone),
            telefone_fixo: landline(&c.landline),
            email: c.email,
            salario: c.salary,
            trabalhando: c.working,
            servidor_publico: c.public_servant,
            pep: c.pep,
            afastado: c.absent,
            medicamento: c.medication,
            medicamento_descricao: c.medication_description,
            key_cliente: c.customer_key,
            status: c.status,
            e_analfabeto: c.illiterate,
            codigo_jave: c.jave_code,
            cargo_politico: c.political_office,
            id_endereco: c.address_id,
            ecommerce_customer_id: c.ecommerce_customer_id,
        }
    }
}

/// The proposal record of routes 5 and 6.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProposalRecordDto {
    pub id: i64,
    pub identificador: String,
    pub id_jave: Option<String>,
    /// Cents (0 for e-commerce proposals).
    pub valor: i64,
    pub cpf_cnpj_parceiro: Option<String>,
    pub id_representante: Option<i64>,
    pub id_cliente: i64,
    pub key_documento: Option<String>,
    pub key_assinatura_requisicao: Option<String>,
    pub reenvios: i32,
    pub status: ProposalStatus,
    pub alterado_por: String,
    pub alterado_em: String,
    pub criado_em: String,
    pub cnpj_associacao: Option<String>,
    pub cnpj_federacao: Option<String>,
    pub tipo_envio: ShippingType,
    pub reenvio_notificacao: i32,
    pub fluxo: Flow,
    #[serde(rename = "codigo_Associado")]
    pub codigo_associado: Option<String>,
    pub id_motivacao: i32,
    pub id_produto: i64,
    pub id_gravacao: Option<String>,
    pub id_convite: Option<String>,
    pub assinatura_eletronica: Option<String>,
    pub codigo_faturamento: i32,
}

impl From<ProposalRecord> for ProposalRecordDto {
    fn from(p: ProposalRecord) -> Self {
        Self {
            id: p.id,
            identificador: p.identifier,
            id_jave: p.jave_id,
            valor: p.value,
            cpf_cnpj_parceiro: p.partner_document,
            id_representante: p.representative_id,
            id_cliente: p.customer_id,
            key_documento: p.document_key,
            key_assinatura_requisicao: p.signature_request_key,
            reenvios: p.resends,
            status: p.status,
            alterado_por: p.changed_by,
            alterado_em: iso(p.updated_at),
            criado_em: iso(p.created_at),
            cnpj_associacao: p.association_cnpj,
            cnpj_federacao: p.federation_cnpj,
            tipo_envio: p.shipping,
            reenvio_notificacao: p.notification_resends,
            fluxo: p.flow,
            codigo_associado: p.associate_code,
            id_motivacao: p.motivation_id,
            id_produto: p.product_id,
            id_gravacao: p.recording_id,
            id_convite: p.invite_id,
            assinatura_eletronica: p.electronic_signature,
            codigo_faturamento: p.billing_code,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProposalView {
    pub id: i64,
    pub identifier: String,
    pub product: String,
    pub produce_code: i32,
    pub product_id: i64,
    pub motivation: String,
    pub value: i64,
    #[serde(rename = "partnerCpfCnpj")]
    pub partner_cpf_cnpj: Option<String>,
    #[serde(rename = "customerId")]
    pub customer_id: i64,
    pub status: ProposalStatus,
    pub id_jave: Option<String>,
    #[serde(rename = "modifiedBy")]
    pub modified_by: String,
    #[serde(rename = "typeSend")]
    pub type_send: ShippingType,
    #[serde(rename = "inviteId")]
    pub invite_id: Option<String>,
    #[serde(rename = "createdAt")]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    pub updated_at: String,
}

#[derive(Debug, Default, Serialize, ToSchema)]
pub struct RepresentativeDto {
    pub cpf: Option<String>,
    pub email: Option<String>,
    pub name: Option<String>,
    pub token_atentende_servico_de_vidio: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerView {
    pub full_name: String,
    pub cpf: String,
    /// A textual date-time, as the spec shows it (not ISO 8601).
    pub birthday: String,
    pub gender: String,
    pub marital_status: Option<String>,
    pub nationality: Option<String>,
    pub cell_phone: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub profession: Option<String>,
    pub salary: Option<i64>,
    pub working: bool,
    pub public_servant: bool,
    pub pep: bool,
    pub absent: bool,
    pub taking_medication: bool,
    pub medication_description: Option<String>,
    pub cep: Option<String>,
    pub street: Option<String>,
    /// The address number when it is numeric; `null` for `S/N` and the like.
    pub number: Option<i64>,
    pub neighborhood: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub complement: Option<String>,
    pub modified_by: String,
    pub is_illiterate: bool,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartnerDto {
    pub cpf_cnpj: Option<String>,
    pub fantasy_name: Option<String>,
    pub social_reason: Option<String>,
    pub modified_by: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompanyDto {
    pub cpf_cnpj: Option<String>,
    pub fantasy_name: Option<String>,
    pub social_reason: Option<String>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntitiesDto {
    pub association_cnpj: Option<String>,
    pub association_name: Option<String>,
    pub federation_cnpj: Option<String>,
    pub federation_name: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LocationDto {
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignDto {
    pub id: Option<i64>,
    pub identifier: Option<String>,
    pub client_key: Option<String>,
    pub association_key: Option<String>,
    pub federation_key: Option<String>,
    pub enterprise_key: Option<String>,
    pub client_status: Option<PartyStatus>,
    pub association_status: Option<PartyStatus>,
    pub federation_status: Option<PartyStatus>,
    pub enterprise_status: Option<PartyStatus>,
    pub modified_by: Option<String>,
    pub updated_at: Option<String>,
    pub created_at: Option<String>,
    pub location: Option<LocationDto>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentDto {
    pub card_id: Option<i64>,
    pub debit_id: Option<i64>,
    pub sheet_id: Option<i64>,
    #[serde(rename = "type")]
    pub payment_type: Option<PaymentType>,
    pub name: Option<String>,
    pub number: Option<String>,
    pub expiry_date: Option<String>,
    pub billing_day: Option<i32>,
    pub bank: Option<String>,
    pub agency: Option<String>,
    pub account: Option<String>,
    pub operation: Option<String>,
    pub sheet_number: Option<String>,
    pub sheet_type: Option<String>,
    pub specie: Option<i32>,
    pub issuer_body: Option<String>,
    pub modified_by: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

/// Route 7's `data`: every member present; what is not known yet is `null`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProposalDetailDto {
    pub proposal: ProposalView,
    pub representative: RepresentativeDto,
    pub customer: CustomerView,
    pub partner: PartnerDto,
    pub company: CompanyDto,
    pub entities: EntitiesDto,
    pub sign: SignDto,
    pub payment: PaymentDto,
}

impl From<ProposalDetail> for ProposalDetailDto {
    fn from(d: ProposalDetail) -> Self {
        let p = d.proposal;
        let c = d.customer;
        let address = d.address;
        let proposal = ProposalView {
            id: p.id,
            identifier: p.identifier.clone(),
            product: d.product_name,
            produce_code: d.product_code,
            product_id: p.product_id,
            motivation: d.motivation,
            value: p.value,
            partner_cpf_cnpj: p.partner_document,
            customer_id: p.customer_id,
            status: p.status,
            id_jave: p.jave_id,
            modified_by: p.changed_by,
            type_send: p.shipping,
            invite_id: p.invite_id,
            created_at: iso(p.created_at),
            updated_at: iso(p.updated_at),
        };
        let customer = CustomerView {
            full_name: c.full_name,
            cpf: c.cpf,
            birthday: birthday_text(c.birth_date),
            gender: c.gender,
            marital_status: c.marital_status,
            nationality: c.nationality,
            cell_phone: cell_phone(&c.cell_phone),
            phone: landline(&c.landline),
            email: c.email,
            profession: c.profession,
            salary: c.salary,
            working: c.working,
            public_servant: c.public_servant,
            pep: c.pep,
            absent: c.absent,
            taking_medication: c.medication,
            medication_description: c.medication_description,
            cep: address.as_ref().map(|a| a.cep.clone()),
            street: address.as_ref().map(|a| a.street.clone()),
            number: address.as_ref().and_then(|a| a.number.parse().ok()),
            neighborhood: address.as_ref().map(|a| a.neighborhood.clone()),
            city: address.as_ref().map(|a| a.city.clone()),
            state: address.as_ref().map(|a| a.state.clone()),
            complement: address.as_ref().and_then(|a| a.complement.clone()),
            modified_by: c.changed_by,
            is_illiterate: c.illiterate,
            created_at: iso(c.created_at),
            updated_at: iso(c.updated_at),
        };
        let representative = d
            .representative
            .map(|r| RepresentativeDto {
                cpf: r.cpf,
                email: Some(r.email),
                name: r.name,
                token_atentende_servico_de_vidio: r.video_attendance_token,
            })
            .unwrap_or_default();
        let (partner, company, entities) = match d.partner {
            Some(pt) => (
                PartnerDto {
                    cpf_cnpj: Some(pt.document),
                    fantasy_name: pt.fantasy_name,
                    social_reason: Some(pt.social_reason),
                    modified_by: Some(pt.changed_by),
                    created_at: Some(iso(pt.created_at)),
                    updated_at: Some(iso(pt.updated_at)),
                },
                CompanyDto {
                    cpf_cnpj: pt.company_cnpj,
                    fantasy_name: pt.company_fantasy_name,
                    social_reason: pt.company_social_reason,
                },
                EntitiesDto {
                    association_cnpj: pt.association_cnpj,
                    association_name: pt.association_name,
                    federation_cnpj: pt.federation_cnpj,
                    federation_name: pt.federation_name,
                },
            ),
            None => Default::default(),
        };
        let sign = d
            .signature
            .map(|s| SignDto {
                id: Some(s.id),
                identifier: Some(p.identifier.clone()),
                client_key: s.client_key,
                association_key: s.association_key,
                federation_key: s.federation_key,
                enterprise_key: s.enterprise_key,
                client_status: s.client_status,
                association_status: s.association_status,
                federation_status: s.federation_status,
                enterprise_status: s.enterprise_status,
                modified_by: Some(s.changed_by),
                updated_at: Some(iso(s.updated_at)),
                created_at: Some(iso(s.created_at)),
                location: Some(LocationDto {
                    latitude: s.latitude,
                    longitude: s.longitude,
                }),
            })
            .unwrap_or_default();
        let payment = d
            .payment
            .map(|pay| {
                let is = |kind: PaymentType| (pay.payment_type == kind).then_some(pay.id);
                PaymentDto {
                    // The stored payments are a debit or a payroll discount; a card is paid on
                    // the platform (the shop's subscription), never stored here.
                    card_id: None,
                    debit_id: is(PaymentType::AccountDebit),
                    sheet_id: is(PaymentType::PayrollDiscount),
                    payment_type: Some(pay.payment_type),
                    name: pay.card_name,
                    number: pay.card_number,
                    expiry_date: pay.card_expiry,
                    billing_day: pay.billing_day,
                    bank: pay.bank,
                    agency: pay.agency,
                    account: pay.account,
                    operation: pay.operation,
                    sheet_number: pay.sheet_number,
                    sheet_type: pay.sheet_type,
                    specie: pay.specie,
                    issuer_body: pay.issuer_body,
                    modified_by: Some(pay.changed_by),
                    created_at: Some(iso(pay.created_at)),
                    updated_at: Some(iso(pay.updated_at)),
                }
            })
            .unwrap_or_default();
        Self {
            proposal,
            representative,
            customer,
            partner,
            company,
            entities,
            sign,
            payment,
        }
    }
}

/// A billing group record (route 10), before projection to the requested fields.
#[derive(Debug, Serialize, ToSchema)]
pub struct BillingGroupDto {
    pub id: i64,
    pub alterado_em: String,
    pub alterado_por: String,
    pub criado_em: String,
    pub codigo_faturamento: i32,
    pub descricao: String,
    pub codigo_integracao: i32,
    pub codigo_produto: i32,
}

impl From<BillingGroup> for BillingGroupDto {
    fn from(g: BillingGroup) -> Self {
        Self {
            id: g.id,
            alterado_em: iso(g.updated_at),
            alterado_por: g.changed_by,
            criado_em: iso(g.created_at),
            codigo_faturamento: g.billing_code,
            descricao: g.description,
            codigo_integracao: g.integration_code,
            codigo_produto: g.product_code,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BankDto {
    #[serde(rename = "codigoBanco")]
    pub codigo_banco: String,
    pub nome: String,
}

/// A product record (the product listing and catalog management).
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductDto {
    pub id: i64,
    pub codigo_produto: i32,
    pub nome: String,
    pub codigo_integracao: i32,
    pub ativo: bool,
    /// Value of a standard proposal, in cents.
    pub valor: i64,
    pub criado_em: String,
    pub alterado_em: String,
    pub alterado_por: String,
    /// The recurring price on the payment platform, when the product is sold online.
    pub price_id: Option<String>,
    /// Present when the product was read with its banks (management answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank: Option<Vec<BankDto>>,
    /// The contract text of its proposals, with placeholders (management answers; null when the
    /// product prints the default terms).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub termos: Option<Option<String>>,
}

impl ProductDto {
    pub fn from_product(p: Product, with_banks: bool) -> Self {
        let banks = with_banks.then(|| {
            p.banks
                .iter()
                .map(|b| BankDto {
                    codigo_banco: b.code.clone(),
                    nome: b.name.clone(),
                })
                .collect()
        });
        Self {
            id: p.id,
            codigo_produto: p.code,
            nome: p.name,
            codigo_integracao: p.integration_code,
            ativo: p.active,
            valor: p.value_cents,
            criado_em: iso(p.created_at),
            alterado_em: iso(p.updated_at),
            alterado_por: p.changed_by,
            price_id: p.price_id,
            bank: banks,
            termos: with_banks.then_some(p.terms),
        }
    }
}

/// Route 11's `data`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductBanksDto {
    #[serde(rename = "codigoProduto")]
    pub codigo_produto: i32,
    pub nome: String,
    pub bank: Vec<BankDto>,
}

impl From<Product> for ProductBanksDto {
    fn from(p: Product) -> Self {
        Self {
            codigo_produto: p.code,
            nome: p.name,
            bank: p
                .banks
                .into_iter()
                .map(|b| BankDto {
                    codigo_banco: b.code,
                    nome: b.name,
                })
                .collect(),
        }
    }
}

/// Who registered a customer (back office).
#[derive(Debug, Serialize, ToSchema)]
pub struct SellerDto {
    /// `PARCEIRO` or `ECOMMERCE`.
    #[schema(example = "PARCEIRO")]
    pub aplicacao: &'static str,
    pub id_parceiro: Option<i64>,
    pub cpf_cnpj_parceiro: Option<String>,
    pub nome_parceiro: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RegistrationAddressDto {
    pub cep: String,
    pub endereco: String,
    pub numero: String,
    pub bairro: String,
    pub cidade: String,
    pub estado: String,
    pub complemento: Option<String>,
}

/// One seller's registration of a CPF: the customer record of route 3, its address and its seller.
#[derive(Debug, Serialize, ToSchema)]
pub struct RegistrationDto {
    #[serde(flatten)]
    pub cliente: CustomerRecordDto,
    pub endereco: Option<RegistrationAddressDto>,
    pub vendedor: SellerDto,
}

impl From<domain::customers::Registration> for RegistrationDto {
    fn from(r: domain::customers::Registration) -> Self {
        Self {
            cliente: r.customer.into(),
            endereco: r.address.map(|a| RegistrationAddressDto {
                cep: a.cep,
                endereco: a.street,
                numero: a.number,
                bairro: a.neighborhood,
                cidade: a.city,
                estado: a.state,
                complemento: a.complement,
            }),
            vendedor: SellerDto {
                aplicacao: r.seller.seller.application(),
                id_parceiro: r.seller.seller.partner_id(),
                cpf_cnpj_parceiro: r.seller.partner_document,
                nome_parceiro: r.seller.partner_name,
            },
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OwnershipItemDto {
    pub id_cliente: i64,
    pub codigo_produto: i32,
}

impl From<domain::customers::OwnershipItem> for OwnershipItemDto {
    fn from(item: domain::customers::OwnershipItem) -> Self {
        Self {
            id_cliente: item.customer_id,
            codigo_produto: item.product_code,
        }
    }
}

/// One field's value before and after a change (masked where personal; `null` where none).
#[derive(Debug, Serialize, ToSchema)]
pub struct FieldChangeDto {
    #[schema(value_type = Object)]
    pub from: serde_json::Value,
    #[schema(value_type = Object)]
    pub to: serde_json::Value,
}

/// One entry of a proposal's history.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryEntryDto {
    #[schema(example = "2026-11-23T13:05:09.000Z")]
    pub at: String,
    #[schema(example = "backoffice@demo.com.br")]
    pub by: String,
    /// criacao, correcao, envio, reenvio, alteracao, assinatura, recusa, status, pagamento,
    /// exportacao ou anonimizacao.
    #[schema(example = "status")]
    pub action: String,
    #[schema(example = json!({"status": {"from": "EM ANÁLISE", "to": "APROVADO"}, "motivo": {"from": null, "to": "Documentação conferida"}}))]
    pub changes: std::collections::BTreeMap<String, FieldChangeDto>,
}

impl From<domain::history::HistoryEntry> for HistoryEntryDto {
    fn from(e: domain::history::HistoryEntry) -> Self {
        Self {
            at: iso(e.at),
            by: e.by,
            action: e.action,
            changes: e
                .changes
                .into_iter()
                .map(|(field, change)| {
                    (
                        field,
                        FieldChangeDto {
                            from: change.from,
                            to: change.to,
                        },
                    )
                })
                .collect(),
        }
    }
}

/// A proposal's history, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryDto {
    pub entries: Vec<HistoryEntryDto>,
}

/// Where the next page of a list starts.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListPageDto {
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[serde(rename = "nextCursor")]
    #[schema(example = "MTc5NTAwMDAwMDEyMzQ1Njo5ODE")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct IsValidDto {
    #[serde(rename = "isValid")]
    pub is_valid: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn timestamps_are_utc_with_milliseconds() {
        let t = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap() + chrono::Duration::milliseconds(6);
        assert_eq!(iso(t), "2026-01-02T03:04:05.006Z");
        assert_eq!(
            iso(Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).unwrap()),
            "2026-11-22T00:00:00.000Z"
        );
    }
}
