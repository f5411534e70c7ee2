"""make corrige: cada resposta conferida de novo na versão do aluno; as notas, os erros contados e,
para cada entrada ruim, o problema com o número da linha (e as outras linhas corrigidas)."""
import csv

import pytest

from livro.exercicios import versao
from livro.exercicios import lista as L
from livro.exercicios.corrige import ler_entregas, main
from livro.exercicios.listas import escrever

TURMA = [("Ana Souza", "A1"), ("Bruno Lima", "B2"), ("Carla Dias", "C3"), ("Davi Reis", "D4")]
IDS = ["tokens-1", "mascaras-2", "proximo_token-1"]


def _v(m, id_):
    return versao(id_, L.semente("semana-4", m))


@pytest.fixture
def pasta(tmp_path):
    escrever("semana-4", TURMA, "tokens-1,mascaras-2:2,proximo_token-1", True, tmp_path)
    (tmp_path / "turma.csv").write_text("nome;matrícula\n" + "".join(f"{n};{m}\n" for n, m in TURMA))
    return tmp_path


def _corrige(pasta, linhas, nome="entregas.txt"):
    (pasta / nome).write_text("\n".join(linhas) + "\n", encoding="utf-8")
    main(["--lista", "semana-4", "--turma", str(pasta / "turma.csv"), "--entregas", str(pasta / nome),
          "--saida", str(pasta)])
    notas = {r["matricula"]: r for r in csv.DictReader((pasta / "semana-4" / "notas.csv").open())}
    resp = {(r["matricula"], r["exercicio"]): r for r in csv.DictReader((pasta / "semana-4" / "respostas.csv").open())}
    return notas, resp, (pasta / "semana-4" / "relatorio.html").read_text()


def test_notas_erros_tipicos_e_cada_entrada_ruim(pasta, capsys):
    certo = {i: _v("A1", i).resposta_txt for i in IDS}
    erro = {i: _v("B2", i).texto(_v("B2", i).erros[0].valor) for i in IDS}
    c_ana = L.codigo("semana-4", "A1", IDS, certo)
    c_bruno_velho = L.codigo("semana-4", "B2", IDS, certo)          # o primeiro código de Bruno: não vale
    c_bruno = L.codigo("semana-4", "B2", IDS, erro)
    c_carla = L.codigo("semana-4", "C3", IDS, {"tokens-1": "abc", "mascaras-2": "0,999"})  # ilegível, errado, branco
    notas, resp, rel = _corrige(pasta, [
        c_bruno_velho, c_ana, "", "olá professor, segue <script>alert(1)</script>", c_ana[:-5],
        L.codigo("semana-3", "A1", IDS, certo), L.codigo("semana-4", "Z9", IDS, certo), c_bruno, c_carla,
        c_ana[:20] + "X" + c_ana[21:]])
    avisos = capsys.readouterr().out
    for trecho in ["linha 4: não achei um código", "linha 5: o código está incompleto", "linha 6: o código é da "
                   "lista «semana-3»", "linha 7: a matrícula Z9 não está na turma", "linha 10: o código está",
                   "a matrícula B2 entregou 2 códigos (linhas 1, 8); vale o último, da linha 8"]:
        assert trecho in avisos and trecho in rel, trecho
    assert "linha 3" not in avisos  # uma linha em branco não é um problema
    curto = L.codigo("semana-4", "C3", IDS[:1], {"tokens-1": "7"})
    _, problemas = ler_entregas(curto, "semana-4", {"C3"}, IDS)
    assert problemas == ["linha 1: o código é de uma lista com outros exercícios (a lista mudou depois do link?); "
                         "ficou de fora."]
    assert [notas["A1"][k] for k in ("entregou", *IDS, "total", "maximo")] == ["sim", "1", "2", "1", "4", "4"]
    assert [notas["B2"][k] for k in ("entregou", "total")] == ["sim", "0"]
    assert notas["D4"]["entregou"] == "não" and resp[("D4", "tokens-1")]["veredito"] == "não entregou"
    for i in IDS:
        assert resp[("A1", i)]["veredito"] == "certo" and resp[("A1", i)]["versao"] == L.rotulo_versao(i, L.semente("semana-4", "A1"))
        assert resp[("B2", i)]["veredito"] == "errado" and resp[("B2", i)]["erro_tipico"] == _v("B2", i).erros[0].nome
    assert resp[("C3", "tokens-1")]["veredito"] == "ilegível" and "não é um número" in resp[("C3", "tokens-1")]["erro_tipico"]
    assert resp[("C3", "proximo_token-1")]["veredito"] == "em branco"
    # o relatório conta: por exercício, os certos e cada erro típico; as erradas sem erro típico, listadas
    nome0 = _v("B2", "mascaras-2").erros[0].nome
    assert f"erro típico: <strong>{nome0}</strong></td><td class=\"n\">1<" in rel
    assert "<script>" not in rel and "«0,999» (C3" in rel
    assert "3 entregas. Média de quem entregou: 1,3 de 4 pontos." in rel  # Ana 4, Bruno 0, Carla 0


def test_o_csv_de_um_lms_com_o_codigo_partido_numa_celula(pasta):
    c = L.codigo("semana-4", "A1", IDS, {i: _v("A1", i).resposta_txt for i in IDS})
    csv_lms = ('Sobrenome,Nome,Endereço de email,Resposta 1\n'
               f'Souza,Ana,ana@x,"{c[:50]}\n{c[50:]}"\n'
               'Lima,Bruno,bruno@x,"sem código"\n')
    notas, _, _ = _corrige(pasta, [csv_lms], "moodle.csv")
    assert notas["A1"]["total"] == "4" and notas["B2"]["entregou"] == "não"
    _, problemas = ler_entregas(csv_lms, "semana-4", {"A1", "B2"}, IDS, e_csv=True)
    assert problemas == ["linha 4: não achei um código de entrega (um código começa com LIVRO1:)."]


def test_os_mesmos_dados_dao_os_mesmos_arquivos(pasta):
    linhas = [L.codigo("semana-4", "A1", IDS, {"tokens-1": "7"})]
    _corrige(pasta, linhas)
    a = {p.name: p.read_bytes() for p in (pasta / "semana-4").glob("*") if p.suffix in (".csv", ".html")}
    _corrige(pasta, linhas)
    assert a == {p.name: p.read_bytes() for p in (pasta / "semana-4").glob("*") if p.suffix in (".csv", ".html")}


def test_sem_a_lista_ou_sem_as_entregas(tmp_path):
    with pytest.raises(SystemExit, match="rode antes make listas LISTA=nada"):
        main(["--lista", "nada", "--alunos", "2", "--entregas", "x.txt", "--saida", str(tmp_path)])
    escrever("s", [("A", "1")], "tokens-1", True, tmp_path)
    with pytest.raises(SystemExit, match="não achei o arquivo das entregas"):
        main(["--lista", "s", "--alunos", "1", "--entregas", str(tmp_path / "x.txt"), "--saida", str(tmp_path)])
