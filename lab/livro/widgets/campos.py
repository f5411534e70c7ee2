"""Ler o que o leitor digita nos widgets: números, inteiros, marcas.

Toda entrada ruim vira `ErroEntrada`, com a mensagem em português que o widget
mostra; nenhuma função aqui deixa escapar outra exceção.
"""
import math
import unicodedata

from livro.formato import inteiro

# O maior valor que um campo numérico aceita. O brinquedo trabalha com números de
# ordem 1; acima disto as contas só acumulam dígitos (e 1e308 estoura o quadrado
# da variância).
LIMITE = 1e6


class ErroEntrada(ValueError):
    """Entrada que o leitor digitou e que não dá para usar (mensagem em português)."""



# ---------------------------------------------------------------------------
# Ler o que o leitor digitou
# ---------------------------------------------------------------------------
_CONTRACOES = {"o": "no", "a": "na", "os": "nos", "as": "nas"}


def em(rotulo, inicio=False):
    """"em" + o rótulo, contraído com o artigo: "a temperatura T" -> "na temperatura T";
    "x₁" -> "em x₁". inicio=True: com maiúscula, para abrir a frase ("Na temperatura T")."""
    artigo, _, resto = str(rotulo).partition(" ")
    s = f"{_CONTRACOES[artigo]} {resto}" if artigo in _CONTRACOES and resto else f"em {rotulo}"
    return s[:1].upper() + s[1:] if inicio else s


def ler_texto(valor):
    """O texto de um campo, em NFC: "sofá" colado de um PDF ou de um Mac chega decomposto
    (o "a" e o acento à parte, NFD), e só composto ele casa com os tokens do vocabulário."""
    return "" if valor is None else unicodedata.normalize("NFC", str(valor))


def ler_num(valor, rotulo, opcional=False, dominio=None):
    """'0,7' ou '0.7' -> 0.7; vazio -> None (se opcional) ou erro; letras -> erro.

    dominio: o que o campo aceita, em palavras ("um número maior que 0"). Sem ele, o campo
    aceita de −LIMITE a LIMITE; com ele, quem chama confere a faixa do campo, e a mensagem de
    um valor infinito diz o domínio do próprio campo."""
    if isinstance(valor, bool):
        raise ErroEntrada(f"Valor inválido {em(rotulo)}.")
    if isinstance(valor, (int, float)):
        v = float(valor)
    else:
        s = ler_texto(valor).strip()
        if s == "":
            if opcional:
                return None
            raise ErroEntrada(f"Preencha {rotulo}: o campo está vazio.")
        t = s.replace(" ", "").replace("−", "-")
        if "," in t:
            if "." in t or t.count(",") > 1:
                raise ErroEntrada(f"«{s}» não é um número: {em(rotulo)}, use uma vírgula só, como em 0,7.")
            t = t.replace(",", ".")
        if "_" in t:
            t = "?"
        try:
            v = float(t)
        except ValueError:
            raise ErroEntrada(f"«{s}» não é um número: {em(rotulo)}, escreva algo como 0,7.") from None
    if dominio is not None:
        if not math.isfinite(v):
            raise ErroEntrada(f"{em(rotulo, True)}, use {dominio}.")
        return v
    if not math.isfinite(v):
        raise ErroEntrada(f"{em(rotulo, True)}, use um número finito.")
    if abs(v) > LIMITE:
        raise ErroEntrada(f"{em(rotulo, True)}, use um número entre −{inteiro(LIMITE)} e {inteiro(LIMITE)}: "
                          "o brinquedo trabalha com números perto de 1, e valores maiores só somariam dígitos.")
    return v


def ler_inteiro(valor, rotulo, minimo, maximo):
    """Para escolhas de lista (token, posição, cabeça): inteiro entre minimo e maximo."""
    dominio = f"um inteiro de {inteiro(minimo)} a {inteiro(maximo)}"
    v = ler_num(valor, rotulo, dominio=dominio)
    if v != int(v) or not minimo <= v <= maximo:
        raise ErroEntrada(f"{em(rotulo, True)}, escolha {dominio}.")
    return int(v)


def inteiro_se_der(v):
    return int(v) if v is not None and v == int(v) else v


def ligado(valor):
    return valor is True or str(valor).lower() in ("1", "true", "on", "sim")


def casas_exatas(valores, maximo=3):
    """Menos casas que mostram todos os valores exatos (pesos como 0,5 e -2)."""
    for k in range(maximo + 1):
        if all(abs(round(x, k) - x) < 1e-12 for x in valores):
            return k
    return maximo


