DROP TABLE billing_groups;
DROP TABLE product_banks;
DROP TABLE products;
DROP TABLE banks;
DROP TABLE representatives;
DROP TABLE partners;
