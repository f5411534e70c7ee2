"""A comparação da trava rápida com o lock (`rapido.comparar`), sem rodar página nenhuma.

Os resultados de mentira têm o formato de `rapido.executar` (por página: o notebook, os glue, o
HTML dos widgets e o erro); o HTML dos widgets é o de verdade (`livro.widgets.api`).
"""
import json

from livro.widgets import api
from livro_ext.trava import rapido, razao


def _lock(tmp_path, conteudo):
    lock = tmp_path / "lock.json"
    lock.write_text(json.dumps(conteudo, ensure_ascii=False), encoding="utf-8")
    return lock


def test_comparar_acusa_o_widget_que_mudou_so_nas_paginas_rodadas(tmp_path):
    html = api.widget_html("saida", api.id_do_widget("saida"))
    travado = razao.ler_lock()["book/saida"]["widget:saida"]
    lock = _lock(tmp_path, {"book/saida": {"widget:saida": travado},
                            "book/outra": {"x": "1"}})            # não rodada: fica fora
    assert rapido.comparar({"book/saida": {"html_widgets": html}}, lock) == []
    mudado = html.replace("␣telhado", "␣telhadO", 1)
    linhas = rapido.comparar({"book/saida": {"html_widgets": mudado}}, lock)
    assert len(linhas) == 1 and linhas[0].startswith("~ book/saida · widget:saida linha ")
    assert "␣telhadO" in linhas[0]


def test_comparar_poe_a_pagina_que_nao_rodou_na_frente(tmp_path):
    lock = _lock(tmp_path, {"book/saida": {"x5": "0,395"}})
    linhas = rapido.comparar({"book/saida": {"erro": "célula 3: NameError: b"}}, lock)
    assert linhas == ["! book/saida: a página não rodou: célula 3: NameError: b",
                      "- book/saida · x5: 0,395 (sumiu)"]


def test_saidas_escondidas_nao_entram_e_os_glue_delas_sim():
    """remove-cell e remove-output: o leitor não vê a saída (fora da razão); o glue, ele vê no texto."""
    from livro_ext.trava import razao_texto

    def celula(src, tags):
        return {"cell_type": "code", "source": src, "metadata": {"tags": tags}, "execution_count": 1,
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "0,395\n"}]}

    nb = {"cells": [celula("print(p)", []), celula("print(p)", ["remove-output"]),
                    celula("print(p)", ["remove-cell"]), celula('cola("p5", "0,395")', ["remove-output"])]}
    itens, _, problemas = razao_texto.itens_do_notebook(nb, {"p5": {"data": {"text/plain": "'0,395'"}}})
    assert itens == {"celula:01.1": "0,395", "p5": "0,395"} and problemas == []


def test_celula_com_magica_ou_que_nao_compila_ainda_acha_as_colas():
    """Uma linha de mágica do IPython (%time, !pip) não esconde as colas da célula; uma célula que
    não compila cai na leitura por texto, na linha certa; uma linha que continua uma expressão e
    começa com % (um resto de divisão) fica como está."""
    from livro_ext.trava import razao_codigo

    v = razao_codigo.Varredor()
    magica = v.celula('%time x = 1\n!echo oi\ncola(f"taxa_{2}", "0,5")\n')
    assert [(p, linha) for p, linha, _ in magica] == [("taxa_2", 3)]
    quebrada = v.celula('cola("antes", 1)\nif x\n    cola("depois", 2)\n')
    assert [(p, linha, trecho) for p, linha, trecho in quebrada] == [("antes", 1, None), ("depois", 3, None)]
    resto = v.celula('n = (10\n% 3)\ncola(f"r{n}", n)\n')
    assert [p for p, _, _ in resto] == ["r1"]
