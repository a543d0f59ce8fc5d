//! A customer's personal columns, in one room. The seller's registration (`customers`) and every
//! proposal's copy of it (`proposal_customers`) hold the same columns; this module is the only
//! Rust that names them: how they read into the domain's [`CustomerSnapshot`], how a route's data
//! writes them, how the proposals' copies follow the registration, and what anonymisation leaves
//! in them. A personal field is added here and in its migration (the read model's document, the
//! export and the back office's view take every column of the rows as stored).

use crate::prepared::prepared;
use crate::rows::CustomerRow;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::QueryableByName;
use diesel::result::QueryResult;
use diesel::sql_types::{Bool, Date, Int8, Nullable, Text, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::customers::{ChangeStamp, CustomerData, CustomerSnapshot, Seller};
use domain::values::ProposalStatus;
use serde::Deserialize;

/// The personal columns of a registration or of a proposal's copy, read from a statement's row
/// or from a row's `to_jsonb` (the read model's document keeps the copy so).
#[derive(Debug, Clone, QueryableByName, Deserialize)]
pub struct PersonColumns {
    #[diesel(sql_type = Text)]
    pub cpf: String,
    #[diesel(sql_type = Text)]
    pub nome_completo: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub nome_social: Option<String>,
    #[diesel(sql_type = Date)]
    pub data_nascimento: NaiveDate,
    #[diesel(sql_type = Text)]
    pub sexo: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub estado_civil: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub nacionalidade: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub celular: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub telefone_fixo: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub email: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub profissao: Option<String>,
    #[diesel(sql_type = Nullable<Int8>)]
    pub salario: Option<i64>,
    #[diesel(sql_type = Bool)]
    pub trabalhando: bool,
    #[diesel(sql_type = Bool)]
    pub servidor_publico: bool,
    #[diesel(sql_type = Bool)]
    pub pep: bool,
    #[diesel(sql_type = Bool)]
    pub afastado: bool,
    #[diesel(sql_type = Bool)]
    pub medicamento: bool,
    #[diesel(sql_type = Nullable<Text>)]
    pub medicamento_descricao: Option<String>,
    #[diesel(sql_type = Bool)]
    pub e_analfabeto: bool,
    #[diesel(sql_type = Nullable<Text>)]
    pub cargo_politico: Option<String>,
}

impl From<PersonColumns> for CustomerSnapshot {
    fn from(r: PersonColumns) -> Self {
        CustomerSnapshot {
            cpf: r.cpf,
            full_name: r.nome_completo,
            social_name: r.nome_social,
            birth_date: r.data_nascimento,
            gender: r.sexo,
            marital_status: r.estado_civil,
            nationality: r.nacionalidade,
            cell_phone: r.celular,
            landline: r.telefone_fixo,
            email: r.email,
            profession: r.profissao,
            salary: r.salario,
            working: r.trabalhando,
            public_servant: r.servidor_publico,
            pep: r.pep,
            absent: r.afastado,
            medication: r.medicamento,
            medication_description: r.medicamento_descricao,
            illiterate: r.e_analfabeto,
            political_office: r.cargo_politico,
        }
    }
}

/// Who changed a row and when (`alterado_por`, `criado_em`, `alterado_em`).
#[derive(Debug, Clone, QueryableByName, Deserialize)]
pub struct StampColumns {
    #[diesel(sql_type = Text)]
    pub alterado_por: String,
    #[diesel(sql_type = Timestamptz)]
    pub criado_em: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    pub alterado_em: DateTime<Utc>,
}

impl From<StampColumns> for ChangeStamp {
    fn from(r: StampColumns) -> Self {
        ChangeStamp {
            changed_by: r.alterado_por,
            created_at: r.criado_em,
            updated_at: r.alterado_em,
        }
    }
}

/// Creates the seller's registration of the customer, or updates the seller's own one by CPF:
/// fields not sent keep their stored value (a new registration stores null or false for them).
/// Another seller's registration is another row.
const UPSERT_CUSTOMER: &str = "\
         INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, estado_civil, nacionalidade, celular, telefone_fixo, \
             email, profissao, salario, trabalhando, servidor_publico, pep, afastado, medicamento, medicamento_descricao, \
             e_analfabeto, alterado_por, aplicacao_vendedor, id_parceiro_vendedor, nome_social) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, false), COALESCE($13, false), COALESCE($14, false), \
             COALESCE($15, false), COALESCE($16, false), $17, COALESCE($18, false), $19, $20, $21, $22) \
         ON CONFLICT ON CONSTRAINT customers_seller_cpf_key DO UPDATE SET \
             nome_completo = $2, data_nascimento = $3, sexo = $4, \
             estado_civil = COALESCE($5, customers.estado_civil), nacionalidade = COALESCE($6, customers.nacionalidade), \
             celular = COALESCE($7, customers.celular), telefone_fixo = COALESCE($8, customers.telefone_fixo), \
             email = COALESCE($9, customers.email), profissao = COALESCE($10, customers.profissao), \
             salario = COALESCE($11, customers.salario), trabalhando = COALESCE($12, customers.trabalhando), \
             servidor_publico = COALESCE($13, customers.servidor_publico), pep = COALESCE($14, customers.pep), \
             afastado = COALESCE($15, customers.afastado), medicamento = COALESCE($16, customers.medicamento), \
             medicamento_descricao = COALESCE($17, customers.medicamento_descricao), \
             e_analfabeto = COALESCE($18, customers.e_analfabeto), nome_social = COALESCE($22, customers.nome_social), \
             alterado_por = $19, alterado_em = now() \
         RETURNING *";

/// Creates or updates the seller's registration of the customer by CPF, inside the caller's
/// transaction; returns the stored row.
pub(crate) async fn upsert_registration(
    conn: &mut AsyncPgConnection,
    c: &CustomerData,
    seller: Seller,
    changed_by: &str,
) -> QueryResult<CustomerRow> {
    prepared(UPSERT_CUSTOMER, |q| {
        q.bind::<Text, _>(c.cpf.as_str())
            .bind::<Text, _>(c.full_name.as_str())
            .bind::<Date, _>(c.birth_date.date())
            .bind::<Text, _>(c.gender.as_str())
            .bind::<Nullable<Text>, _>(c.marital_status.map(|m| m.as_str()))
            .bind::<Nullable<Text>, _>(c.nationality.as_deref())
            .bind::<Nullable<Text>, _>(c.cell_phone.as_ref().map(|p| p.as_str()))
            .bind::<Nullable<Text>, _>(c.landline.as_ref().map(|p| p.as_str()))
            .bind::<Nullable<Text>, _>(c.email.as_ref().map(|e| e.as_str()))
            .bind::<Nullable<Text>, _>(c.profession.as_deref())
            .bind::<Nullable<Int8>, _>(c.salary.map(|s| s.cents()))
            .bind::<Nullable<Bool>, _>(c.working)
            .bind::<Nullable<Bool>, _>(c.public_servant)
            .bind::<Nullable<Bool>, _>(c.pep)
            .bind::<Nullable<Bool>, _>(c.absent)
            .bind::<Nullable<Bool>, _>(c.medication)
            .bind::<Nullable<Text>, _>(c.medication_description.as_deref())
            .bind::<Nullable<Bool>, _>(c.illiterate)
            .bind::<Text, _>(changed_by)
            .bind::<Text, _>(seller.application())
            .bind::<Nullable<Int8>, _>(seller.partner_id())
            .bind::<Nullable<Text>, _>(c.social_name.as_ref().map(|n| n.as_str()))
    })
    .get_result(conn)
    .await
}

/// Copies the registration (and its address) into the proposals of it that are still NOVO: the
/// new one made in the same transaction, and the seller's earlier ones not yet sent for signature
/// (its corrections reach them). A proposal that left NOVO keeps the copy it had.
const REFRESH_PROPOSAL_CUSTOMERS: &str = "\
         INSERT INTO proposal_customers (id_proposta, id_cliente, cpf, nome_completo, data_nascimento, sexo, estado_civil, \
             nacionalidade, celular, telefone_fixo, email, profissao, salario, trabalhando, servidor_publico, pep, afastado, \
             medicamento, medicamento_descricao, e_analfabeto, cargo_politico, cep, endereco, numero, bairro, cidade, estado, \
             complemento, alterado_por, criado_em, alterado_em, nome_social) \
         SELECT p.id, c.id, c.cpf, c.nome_completo, c.data_nascimento, c.sexo, c.estado_civil, c.nacionalidade, c.celular, \
             c.telefone_fixo, c.email, c.profissao, c.salario, c.trabalhando, c.servidor_publico, c.pep, c.afastado, \
             c.medicamento, c.medicamento_descricao, c.e_analfabeto, c.cargo_politico, a.cep, a.endereco, a.numero, a.bairro, \
             a.cidade, a.estado, a.complemento, c.alterado_por, c.criado_em, c.alterado_em, c.nome_social \
         FROM proposals p JOIN customers c ON c.id = p.id_cliente JOIN addresses a ON a.id = c.id_endereco \
         WHERE p.id_cliente = $1 AND p.status = $2 \
         ON CONFLICT (id_proposta) DO UPDATE SET \
             cpf = EXCLUDED.cpf, nome_completo = EXCLUDED.nome_completo, data_nascimento = EXCLUDED.data_nascimento, \
             sexo = EXCLUDED.sexo, estado_civil = EXCLUDED.estado_civil, nacionalidade = EXCLUDED.nacionalidade, \
             celular = EXCLUDED.celular, telefone_fixo = EXCLUDED.telefone_fixo, email = EXCLUDED.email, \
             profissao = EXCLUDED.profissao, salario = EXCLUDED.salario, trabalhando = EXCLUDED.trabalhando, \
             servidor_publico = EXCLUDED.servidor_publico, pep = EXCLUDED.pep, afastado = EXCLUDED.afastado, \
             medicamento = EXCLUDED.medicamento, medicamento_descricao = EXCLUDED.medicamento_descricao, \
             e_analfabeto = EXCLUDED.e_analfabeto, cargo_politico = EXCLUDED.cargo_politico, cep = EXCLUDED.cep, \
             endereco = EXCLUDED.endereco, numero = EXCLUDED.numero, bairro = EXCLUDED.bairro, cidade = EXCLUDED.cidade, \
             estado = EXCLUDED.estado, complemento = EXCLUDED.complemento, alterado_por = EXCLUDED.alterado_por, \
             criado_em = EXCLUDED.criado_em, alterado_em = EXCLUDED.alterado_em, nome_social = EXCLUDED.nome_social";

/// Runs inside the caller's transaction, after the registration and its address (pipelined
/// statements run in order).
pub(crate) async fn refresh_proposal_customers(conn: &AsyncPgConnection, customer_id: i64) -> QueryResult<()> {
    let mut conn = conn;
    prepared(REFRESH_PROPOSAL_CUSTOMERS, |q| {
        q.bind::<Int8, _>(customer_id)
            .bind::<Text, _>(ProposalStatus::New.as_str())
    })
    .execute(&mut conn)
    .await?;
    Ok(())
}

/// The personal fields of a registration replaced: the name says what happened, the birth date is
/// a placeholder day, every other personal value is emptied, with the registration's own keys.
/// `$1` the registration, `$2` the value that stands for the CPF, `$3` who anonymised it.
pub(crate) const ANONYMIZE_REGISTRATION: &str = "\
UPDATE customers SET cpf = $2, nome_completo = 'Titular anonimizado', nome_social = NULL, data_nascimento = DATE '1900-01-01',
    sexo = 'Não informado', estado_civil = NULL, nacionalidade = NULL, celular = NULL, telefone_fixo = NULL,
    email = NULL, profissao = NULL, salario = NULL, trabalhando = false, servidor_publico = false, pep = false,
    afastado = false, medicamento = false, medicamento_descricao = NULL, e_analfabeto = false, cargo_politico = NULL,
    key_cliente = NULL, codigo_jave = NULL, id_endereco = NULL, ecommerce_customer_id = NULL, payment_method_id = NULL,
    alterado_por = $3, alterado_em = now()
WHERE id = $1";

/// The same for every proposal's copy of the registration `$1`, with the copy's address.
pub(crate) const ANONYMIZE_COPIES: &str = "\
UPDATE proposal_customers SET cpf = $2, nome_completo = 'Titular anonimizado', nome_social = NULL, data_nascimento = DATE '1900-01-01',
    sexo = 'Não informado', estado_civil = NULL, nacionalidade = NULL, celular = NULL, telefone_fixo = NULL,
    email = NULL, profissao = NULL, salario = NULL, trabalhando = false, servidor_publico = false, pep = false,
    afastado = false, medicamento = false, medicamento_descricao = NULL, e_analfabeto = false, cargo_politico = NULL,
    cep = '', endereco = '', numero = '', bairro = '', cidade = '', estado = '', complemento = NULL,
    alterado_por = $3, alterado_em = now()
WHERE id_cliente = $1";
