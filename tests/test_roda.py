"""A roda (wheel) do livro que vai para o navegador: o nome, a tag e o RECORD dizem o que ela tem.

Ela sai do setuptools, o pyodide-build a compila e a registra (livro_ext/widgets/pos_build.py).
Aqui: o nome tem a tag do Python do Pyodide, o WHEEL diz a mesma tag, o RECORD lista cada
arquivo que está dentro (hash e tamanho), e o que está dentro é o bytecode dos módulos que
o navegador usa, mais nada; o lock aponta para ela com o sha256 dela."""
import base64
import csv
import hashlib
import io
import json
import zipfile
from email.parser import Parser

import pytest
from packaging.tags import Tag
from packaging.utils import parse_wheel_filename

from livro_ext.widgets import pos_build

pytestmark = pytest.mark.pesado   # o pyodide-build, num processo à parte (ou o cache dele)


@pytest.fixture(scope="module")
def roda(tmp_path_factory):
    feitos = pos_build.roda_e_lock(tmp_path_factory.mktemp("roda"))
    with zipfile.ZipFile(feitos["roda"]) as z:
        conteudo = {n: z.read(n) for n in z.namelist()}
    lock = json.loads(feitos["lock"].read_text(encoding="utf-8"))
    return feitos["roda"], conteudo, lock


def _info(conteudo, arquivo):
    di = {n.split("/")[0] for n in conteudo if n.split("/")[0].endswith(".dist-info")}
    assert len(di) == 1, di
    return Parser().parsestr(conteudo[f"{di.pop()}/{arquivo}"].decode())


def test_nome_e_tag_da_roda_sao_os_do_python_do_pyodide(roda):
    caminho, conteudo, _ = roda
    nome, versao, build, tags = parse_wheel_filename(caminho.name)
    minor = "".join(pos_build.info_do_pyodide()["python"].split(".")[:2])
    assert (nome, str(versao), build) == (pos_build.PACOTE, pos_build.VERSAO, ())
    assert tags == {Tag(f"cp{minor}", "none", "any")}
    meta, wheel = _info(conteudo, "METADATA"), _info(conteudo, "WHEEL")
    assert (meta["Name"], meta["Version"]) == (pos_build.PACOTE, pos_build.VERSAO)
    assert wheel.get_all("Tag") == [str(t) for t in tags], "o WHEEL diz outra tag que o nome"
    assert wheel["Root-Is-Purelib"] == "true"


def test_record_lista_cada_arquivo_da_roda_com_hash_e_tamanho(roda):
    _, conteudo, _ = roda
    record_nome = next(n for n in conteudo if n.endswith(".dist-info/RECORD"))
    linhas = list(csv.reader(io.StringIO(conteudo[record_nome].decode())))
    assert [nome for nome, *_ in linhas].count(record_nome) == 1
    assert sorted(nome for nome, *_ in linhas) == sorted(conteudo), "o RECORD lista outros arquivos que a roda tem"
    for nome, hash_, tamanho in linhas:
        if nome == record_nome:
            assert (hash_, tamanho) == ("", "")
            continue
        dados = conteudo[nome]
        esperado = base64.urlsafe_b64encode(hashlib.sha256(dados).digest()).rstrip(b"=").decode()
        assert (hash_, tamanho) == (f"sha256={esperado}", str(len(dados))), nome


def test_roda_tem_o_bytecode_dos_modulos_do_navegador_e_o_lock_aponta_para_ela(roda):
    caminho, conteudo, lock = roda
    pacote = {n for n in conteudo if not n.split("/")[0].endswith(".dist-info")}
    fontes = [nome for _, nome in pos_build.arquivos_da_roda()]
    assert pacote == {n + "c" if n.endswith(".py") else n for n in fontes}
    entrada = lock["packages"][pos_build.PACOTE]
    assert entrada["file_name"] == caminho.name
    assert entrada["sha256"] == hashlib.sha256(caminho.read_bytes()).hexdigest()
    assert entrada["imports"] == [pos_build.PACOTE]
