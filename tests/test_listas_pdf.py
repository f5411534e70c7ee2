"""O PDF das listas (make listas: livro_ext.pdf.listas, o Chromium do livro): a capa com o nome, a
matrícula e os pontos, cada enunciado da versão do aluno, o rodapé com a página, nada fora da margem;
o gabarito com as respostas. Precisa do Chromium e do pdftotext (o make test os instala)."""
import re
import shutil
import subprocess

import pytest

from livro.exercicios import versao
from livro.exercicios import lista as L
from livro.exercicios.listas import escrever
from livro_ext.pdf.listas import imprimir
from pdf_confere import margens_do_xml, normaliza, paginas

pytestmark = pytest.mark.pesado


def _sem_tags(html):
    return normaliza(re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="sem o pdftotext (poppler-utils; o make test o instala)")
def test_a_lista_e_o_gabarito_em_pdf(tmp_path):
    turma = [("Ana Souza", "A1"), ("José da Silva", "B2")]
    pasta = escrever("semana-4", turma, "tokens-1,mascaras-2:2,embeddings-1", True, tmp_path, "https://x.github.io/l")
    pdfs = imprimir(pasta)
    assert [p.name for p in pdfs] == ["A1.pdf", "B2.pdf", "gabarito.pdf"]
    folhas = paginas(pdfs[1])
    texto = normaliza(" ".join(folhas))
    sem_espaco = re.sub(r"\s+", "", texto)
    assert "José da Silva" in texto and "B2" in texto and "4 pontos no total" in texto
    assert f"página 1 de {len(folhas)}" in texto and len(folhas) >= 2
    for i in ("tokens-1", "mascaras-2", "embeddings-1"):
        v = versao(i, L.semente("semana-4", "B2"))
        assert re.sub(r"\s+", "", _sem_tags(v.enunciado)) in sem_espaco, i
        assert f"versão {L.rotulo_versao(i, L.semente('semana-4', 'B2'))}" in texto
    gab = re.sub(r"\s+", "", normaliza(" ".join(paginas(pdfs[2]))))
    for m in ("A1", "B2"):
        assert re.sub(r"\s+", "", versao("mascaras-2", L.semente("semana-4", m)).resposta_txt) in gab
    xml = subprocess.run(["pdftotext", "-bbox", str(pdfs[1]), "-"], capture_output=True, check=True).stdout.decode()
    n, fora = margens_do_xml(xml)
    assert n == len(folhas) and fora == []
