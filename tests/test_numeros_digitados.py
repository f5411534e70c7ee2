"""Nenhum número com separador digitado nas páginas (fora de código): todos são calculados.

A regra e as exceções estão no docstring de tests/lint_numeros.py.
"""
import textwrap

import lint_numeros as lint

from conftest import RAIZ


def test_nenhuma_pagina_tem_numero_digitado():
    paginas = lint.paginas(RAIZ)
    assert paginas, "nenhuma página em book/*.md"
    problemas = lint.relatorio(paginas)
    assert not problemas, "números digitados (calcule e cole com glue):\n" + "\n".join(problemas)


def test_o_laboratorio_e_verificado():
    assert RAIZ / "lab" / "laboratorio_gpt2.py" in lint.paginas(RAIZ)


def test_numero_plantado_no_script_falha(tmp_path):
    script = tmp_path / "lab.py"
    script.write_text(textwrap.dedent("""\
        # %% [markdown]
        # ## 1. Tokens
        #
        # Uma lista de 50.257 pedaços.

        # %%
        V = 50.257  # no código, pode
        print(f"{V:,}")

        # %% [markdown]
        # A perda cai para 3,25 nats; em 2019, com d = 768.
        """), encoding="utf-8")
    achados = lint.verificar_arquivo(script)
    assert [(lin, n) for lin, n, _ in achados] == [(4, "50.257"), (11, "3,25")]


PLANTADA = textwrap.dedent("""\
    ---
    jupytext: {text_representation: {extension: .md, format_name: myst}}
    kernelspec: {display_name: Python 3, language: python, name: python3}
    ---
    # Passo 5 de 7

    A probabilidade é 0,395 nesta frase.
    A conta em matemática: $p = 0{,}141$.

    ```{note}
    Dentro de um aviso: 50.257 tokens.
    ```

    :::{dropdown} Resposta
    Dentro de um dropdown: 1,5.
    :::

    | token | p |
    |---|---|
    | telhado | 0.089 |
    """)

LIMPA = textwrap.dedent("""\
    ---
    title: versão 1.0.4
    ---
    # Passo 5 de 7

    Em 2017, com d = 4 e 5 tokens, a linha 5 e a cabeça 2; o valor é {glue:text}`bloco.md::p_0.5:s`
    e o código `x = 0,395` não conta, nem [o link](https://exemplo.org/v1.2) ou https://a.b/3.14.
    O índice $y_{3,1}$ é linha e coluna.

    ```{code-cell} python
    p = 0.395
    ```

    ```python
    print(1.5)
    ```

    <div class="widget" data-x="2.5">
    </div>
    """)


def test_numero_plantado_falha(tmp_path):
    pagina = tmp_path / "plantada.md"
    pagina.write_text(PLANTADA, encoding="utf-8")
    achados = {(lin, num) for lin, num, _ in lint.verificar_arquivo(pagina)}
    esperados = {(7, "0,395"), (8, "0{,}141"), (11, "50.257"), (15, "1,5"), (20, "0.089")}
    assert achados == esperados
    # a mensagem nomeia o arquivo e a linha
    msgs = lint.relatorio([pagina])
    assert any("plantada.md:7:" in m and "0,395" in m for m in msgs)


def test_excecoes_passam(tmp_path):
    pagina = tmp_path / "limpa.md"
    pagina.write_text(LIMPA, encoding="utf-8")
    assert lint.verificar_arquivo(pagina) == []


def test_lista_de_permitidos_e_curta():
    assert len(lint.PERMITIDOS) <= 5, "a lista de exceções deve ser pequena e justificada"
    assert all(motivo.strip() for motivo in lint.PERMITIDOS.values())
