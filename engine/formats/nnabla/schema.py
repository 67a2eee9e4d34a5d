"""nnabla's protobuf schema (``NNablaProtoBuf``: networks, parameters, datasets, optimizers...).

The schema is nnabla 1.39's ``nnabla.proto`` (Apache-2.0,
https://github.com/sony/nnabla/blob/master/src/nbla/proto/nnabla.proto.tmpl, generated with
every function's ``<snake>_param`` message), kept here as its serialized ``FileDescriptorProto``
(zlib, base64) so no ``protoc`` is needed. The messages live in a private descriptor pool: their
unqualified names (``Shape``, ``Network``) must not clash with other users of protobuf.
``tools/nnabla_schema.py`` writes the descriptor block and ``NNABLA_VERSION`` from a newer
nnabla's ``nnabla.proto`` (docs/adding-a-layer.md §5).
"""

from __future__ import annotations

import base64
import zlib
from functools import cache
from typing import Any

from engine.core import optional

# protobuf is imported when a schema message is first needed (reading or writing a .nnp)
descriptor_pb2 = optional.lazy("google.protobuf.descriptor_pb2")
descriptor_pool = optional.lazy("google.protobuf.descriptor_pool")
message_factory = optional.lazy("google.protobuf.message_factory")

__all__ = ["message_class", "NNABLA_VERSION"]

NNABLA_VERSION = "1.39.0"

_DESCRIPTOR = (
    "eNrNXWuQJEdx9szc3s7kvmf3dudu71arFpLOkhjBCZA4geF2b+906Hbv2D1JBGHo6JnpmW1upnvU3XO7KzvCNhgbB2De5mEM"
    "SBgcBuEHTwMOhx02b+wfYAzh8CPC//wAAwYbP8I4sx7dXdXds3cCSf6hOE1VZlZVVlZWVtbXtTDuulaja9X7vhd6Rg1Gtrat"
    "vl2dglLL6dUKy6XjpZXidMGYhPFVr9cbuE7TCj3f6MHoqueG9m5YnYZyw2pett1WwBgq1VkYs3zf2jObXSsIasXlAhbOQKVl"
    "X3Gatum0aiVWNAWjgrN2gBUswFTT6/UHoW3KihGqMB4pwuTGBvX0InV0ZdAm5iu2Hziei60S81NgotP1GlbXbHpu2+mwdsdO"
    "TNTPstJVVlg9DlOhbzmu43YkHTC6qfolUS4oD8Ooa4c7nn+51sJhjZ0o1zf47+oSVPqWb/Xs0PZrny+wWqhflEXVIzDaskIr"
    "sMPao0XBe5oXEK/XD52e8xDyvr4keC/IIuLtea6DSq59ryR413lB9SiU7V27OaDKbxxglZX6migxng7jylCvh6mW3bYG3ZBG"
    "SnPFNEUCxdwZDkxqo8Zp6lm7pt33mtuMvFSdh0kHR2X28T9eXmTlSBpYV3Cq7CBEFRWOl1Fn06LzpoMt+FesLukHqY1XFWBU"
    "6m8cDrioKjFxVYCGFTa3zQAVwGajVF2GMd/u21aIctpebYyNday+ycrOYVF1EcpXLN9Bm7DF/FTq94sCUlR74DZDsg4xP5X6"
    "GVFi3AyQEARQRIvkXZmAEZwHm9tsybgDpjhhPLU4aNmxHKY1qG7ijPi+7Q7nm4SDXdvthFKfqBVr1wnY4igZAZSj4aj6wl/h"
    "Xt+O11UsuMTW3yEYCWgZ1+bYdB+s80V9PYzhTIeO1WW212KV4/VzcZlxO4wlfmotoaZ6aExOv+sgO81T0XgxVOIxHoIJOSVm"
    "or853UHhtEjY5BVpGK5tt8yOb7VqNhmT8XW0GLlqhmlgDEoD32Ed0o1pThpq02pu22bL8WtL0tN46D52fLRsk1XWrmMWfB0s"
    "NH3Upig17V0cbtMJu3u1ZUaAfifYHrTbzOyoYAnmXc90elYHR+35PdKdxSyPDQNbjw2V2WLF+EYRKvGKV8eG1uT5LVQwM4Pq"
    "HIwLL8RVykeJpcLB8NI5Nu8LcDDwujgsNsixE6P1LfaTRjvot2hQ0ao8zqSjzyQ5ZtTBE2ytTDBvFZlfHaod27V98vwx6XMY"
    "abV+VlZF9Ci16wVBTHpGSD2PpUmpkRONSS8KqZFVRfQ4s0Fo+WjnobDeEu09uEnwEpstm7thjg96K8TxJm1zfyM0Hi7AWIK7"
    "WoEC95kT1WfDVEBlZuz4uWdfric46mqra27o7x05D7MZxWS2l+29aPMawVkZ2GLTOlTPGsTJ4l0F49ExOCimVV0GuF9JNw+q"
    "mydz2bGdznZotuymtcd0UKzegOZC8gM0BhrJrGiUDyLgvTTQyXdafNTCZUzUtzqtqFP3/AR2HpBmRxDZjGiSiB5IUt0Gkz2v"
    "h05x0BOUbUZZxe2NF2syu5YfCMqOkHkeizSZLu4+tu9dEZTbQuaGKNaorZbVsrto8ZzaEdSnRHGS+haYQGryR4L4ZYx4hoip"
    "NElbhymkbdjoGduC+jKjniXqFVauyfZ7AQZdfUHdFbI317eoNEl7J8xJWmz2ii110mMsC5LlLKvTVIidksp2hQqxP4qib8Jg"
    "DYvk7HkiGCKyB9LKa3gDV+qjHytvhYqT1MdhnKRiJMFpH2S000ystauruRck1OxLNa9vnd08dVrvQy9I9iGQfVjfSvWBmVCv"
    "ISjDyIR6DZ0KnbWgGkgqLEpSHYGZrm8GuCO0Bl30V2zdfZ6v3RU40ve6e67Xw30zQcMlfoXHXMfqFyOaLUkSu6eTMN/0Ase1"
    "U/xf5fyHcTFTfQbvaVjEXcpzcQ1ldeAvuYAlDBQjogwpz4I5XDH9FPvXCsLOtrA2p+eDIPR6Kc4PFmXPWX0G7/VQQ63uWH5v"
    "0NeV+yj3amfhWBeHbWWQ8VY+zlu5DqeMyB5gVBlt4VaBbXH/t8T832E2p6wk3hcpCigduRv3gYQTVFz1ouqqx5Oumjz0ylji"
    "dGAcgfGkt6Ros+szSUXj2TChOMlkJfVXukvWUpFqd/jRqYix/kzKaw5nNy7AhOI+92kND3FNz263MfjBYt4sKcLuB+y0xvqQ"
    "8rL79OFumEm5WoUFox8+RcVke3zMt8K07noVXkHMW/pAAapp10vyrW5/24qba9ih9XTRnPh5ImO0Qvsj7P8xBhQ+q3aQxXgY"
    "YMUbrDfoYyAzyipQi21nF+NaPqqyDCF9G48i7b1ahUW6J2Fad/xXrZVNmM/eAYZJSM5Mxsyegwllm3jsajPuh0l1K/nxTIHh"
    "MktSff6PIBoV0nZc9J6osRFJ3bF6PYvNcNG4F6a0vetHUIqNlqztbj9C39H4Go4V4CHfZ2aFJ48RZla/XEAl6Rvj46ikrJ6w"
    "ZWC8vEDOJ7HxMsHh1fUBlwtrxOyKfkQFA9EN0ct9OoHuVtnW9QWS3wXjeXB06PZN6wljHXYOieT1vR12SiABt0Etd/9OMRtr"
    "cGz4Zh3pnTeGB2+WoYl2saI4C83nbNoaP2qC8VMAELBzTcl4YwG7nLdxp8ebfU69uvPlcTyMD8L+INSPgVP1C6xcUhrPhKV9"
    "tnl0uCJQiDpXMu6CcaXBnEQFpSipt6yIpSiN8zCTPt/msA/LlnAzuhHGlSNwtiBqNH38zWl0GUMo1AfLZ/p0Pk00yk3vMwUY"
    "lQlENdVwLbmFxydTcEucL9SSBdMy6RnN/UtgSiu6uolIz6o2Ny2mpv8pQlmmUq9KT+hnXDzK2hQMsnxPINJNSzAvMnJxHY9p"
    "DzHGY3CIpbooxW3Sxm11eL5oiUUHT2ZO5qpXYk725sW52Zt9smTGPTCptfAYJ9d4+BSUZar3WjOnQ3Io6DIdF/sn1sMkHOSa"
    "wlmj3z+JB14Mll2RIKr946g88bLS5FnyBmzXlQfOfxoVOZXNjY0k0Y14LA1CeXj/51F5Lt26tK7J6vgDQfUvUtbZzfuSRHfA"
    "DI7qitcdhPFJ95ujItO0GlclmX4KFtqDAM00zfotznqkfoYIcvjPwGLL7ofbO05gZ8j411FxKj0tiXLk3AmzFFPr/N8eFcfS"
    "08nKJOML4FjcgSwR3+EiluMu5Mq6B4627DaZLVljWtR3R8Uh9HRElTOcEzDDsiKe1yWXzdm/x9nn6usYX/KaJM9JOISRvU9L"
    "R+X7Puer1U/x6gxebC+ghJvC9x+yvS08PqZ5boepgaty/GBUpLPukxVa+sv3HBPXdEdq5L9GRWZm03NOUblm3L7dlWb7v9K4"
    "N+3zit0+DaZxb7u8ZyaIfyg7cp5qdI5bYSLw2mGcd/r5ssgmbfFiTTVdr2OqDL9QFqo573UyeHC9xX15eVmstzW1Fzi8IKZ6"
    "RVkmRDWym/GEnRjZL5ZF6m1VHxXKa8Z0r5TyVtPy+gl5vyTlXdTlPRUmadD97kDmEl9bFrNFQ76I5UnydbiOewJ+saJ4b8H/"
    "Bs5/PfcIK0S3kSRLiluBw/mC3sgFHa3vK6Pj4zk7U8abpIyzRJIrA9e04wah5TbtTDFvLos1fU5QDetN19rDfTBLzFtkb84T"
    "Sa6M50ONuDNF/BoXsVgn7lwJ98JSsOc2h8zSW8vC4W0h3XAFn4Yjoe0GXvaY3lYWOc1LjGaYFJEWyZLydinlAUYzbKKEFJqH"
    "luW3VDnvkBPF5WypRElJz4LZoI9nQh/PsEzbXMCvcwHz9S1RSV1J8j0H5nu25ZrBoIHVzUTb7yyLHOc61m/F1Sr3QrPrsOw9"
    "rqG9ZMvvKgsHvooEZ7F+ZU9vGz1OEN2YvFt6nC31tgSjj+agF9O9pyyij9VBTyNFZ8LGwgkfls6E+q81GzvFR2Sz6ylv2HOk"
    "qPdGRI7u7BMj/k3ZoD5OJMNYWOb13yfJLmKZ5uFxpAnK90sPj0PViW+kG5DWCUH52+XoCqR1QruCaDTNBOUHpfpWmjot+fZB"
    "QxI+Gvl2LNO1POhKsg9FWsYyjazlXJFkvyvJTmOZrhtvR5L9XqQbLNP2SxyEGTStriXT479fju6hWlusQuPAbqocH5Yc2NlM"
    "DuyKyvERyYEdSnPcAVWfVo7K81G5z26i6nKYUDUq08ciJtRQDlOqdx+PmDK7RxMahy2fiCZUC1nugjk0dac36KnSP1UWceg6"
    "r003QJzWbprz0xEnr01zPhOqAZ7tm9voY0NbGvxnIm/F6rZYXZLteVDDuMZBcSZ6QrXRz5ZF6H6eU5xyM6ziubAgBXi+yv85"
    "6e8E/wU/zZ5of1fn/7zW/ou8DAHPgKr94MDS7PILZXFgWaO6NNfddMLEM3ea84vSy254YQ7zKhzpMNiHnyXgS3FEwWhyhOBM"
    "SyEK+5flTAv2bI3beDrPaPvPI40jQU7DFMkSu8L4F1Eki1VpHorZbZ7kkcb/FRkFblLFhrWRSe+48or7qwr9ObetBZl4TqId"
    "O5Q3iZJ8VZRrOxj+cjvy/PxX0gWfYqWaZDyABH2rKYm/LiWfF+WaNfGQqGeF5Ow4y99Ia2Jx0Dqr0oJpP3HP/LcymN7Ub5lZ"
    "cO5IsX8XBedYpslrdz1PTs7fS3lnqDB9WG+inbgR3KT2zXJ8WJdVmvSg33Wkpr8lpW9RoU4YsrwTP4VHhFSoE3adSMPfjgip"
    "UIsB+tHd/XdkDHBRxUfczlCXODdeICV+V24al2SFxtDwPavVtAI5qH+TDCuyQp/liCH05ME6mmVZd8nTJi90urJL35eTdwnL"
    "tADBc21z25N9+XdpnRdc+x4v1ES2KdoTJ20p8gyW6frddtpS4A8i/VKhvj+hixd0/xntT1imxUW4PAnTJA/gMi7a5MWpxmPS"
    "/44bTxOGvhOf1MsRVBYLtTXZw3Y6viNN4YdyTa6Lcs1T8jXZ3PbQc+ERX5yVK8JTslW5Kio1P9Gxwu3o+v+VFTETZ1mpFqqg"
    "QwzJHUfr+FUVYURbvGajpSdLBAcFUpzlVyoyWcKrMJDS/GLD87pm2+lKJ/Dqihj6ClacwXJtp+nzBdhq4Z4eoMu33WidvaYi"
    "dpqLbD0SyZagSAo5BYf5omteTst4bUUcF9kiJIosEehn2HVR3+vGfuZ1FbFezsVVmoI819010dSchyTT66WCLmxsvGiT1WgO"
    "oh3Z+RsqwkGcOXNJs3InpnpjRVj5uTRZEEZkb5JkW5dUMjRbJ0H35oow23M6Ia6alu/1vYEkfUtFrJrTvFj1SdOh1zcvmyzj"
    "LI7mcqovef17KUGfyZBAN701yXBWg5FRXsyKbPVtcniblqufgYjMiXbWt8teb/JifSPD0uiwLHVBpPrhmDXecASSSRyOKyLc"
    "JIYVUacHBozPjrTyTjlIxmOrWsFlyej5FS5n+A25LInhLFVk9MzrkbuI96R3JXvm9VZZnWatki9G2r1bWqvg0tB2MU/Ci79H"
    "5dF9Oe49gifp0h+Wa4kzpRx7zGX7VrQtPqJyrVGVlifilyjWoEMAjmQi5L1y4Z8jilMJgqSENViUKU9UCwWdbohKkC74/RWR"
    "lRHZz1WiWeMkWlaQIpGO57NIP0vUb1VEVnA1JswTh1axPWig42W3VJz/A9Iq7qEauqjS8l12P3C6OHyM+mw3cELnip3k/2BF"
    "5LvWON25mEwXhhvS5S6/O1Ws/1G5Id17fj2u1AxGXPwkNr8PSYPhtz9nte0PD6o7lt+nZFCC6Xck0wNYt7KnM+G84dK0/D26"
    "f3DtZmgqF04flvO2wohWOU369ukCLGti0tcZH+GyDFVWzo0GbmhCoMjSKd36qNzQuCieokv3Cq1JFZLu1MekNSUl5fQJrclx"
    "H1R78nFpTec2XpjuwEk4RBzpZj9REYdHZMvXAAd59T3yyXhGc8N4e/wDqYEzRHORSF4oKLTjK+XSaFlqAj4pe7DuuOvWbhYz"
    "ekiWINI4PyU9JGWKsvjYlcEgUtGn5eZwkQo19USyBR6Ts/yh7JwUz/EZSd6nwwxtgy76OT86AP2RnA3cBzfWqEJLuNLHWQP6"
    "vIvObb4jU5F/XIngsKJ+nVVrO9IVi3LOTuRW/0TuSPefurRB5akUkCvPRH8aRRVYpunA7QVmC3+yHO8JuXD/TOpgoxecjmvV"
    "y8glFji5Hp/iYNDvYxAVxHb2mYrIYlMUtUHD2t2KiTRzS14hEowAvYnszGelucV3iSuCQrve7fMInGBS3eQ28rmKyNFcZEF4"
    "XK/F4QPXwbBSJnZkHH4fK9VQ2/Yemc1lSfwFGa+s7aG9XNYno+dFmdgvyslY99Q8LIXdeN5NbrhfisJuJ0zttthfG7eJKEP+"
    "ZdnfNVaqIuLHBS4g+dXDdF3/FOw2yoiID72Ubx8wjEl9AKaigp8CU5oLIjRCg8IA9gkYhy35MJ5EBRBshRAn7K5J0DBsiufy"
    "JemEewLaMAWjIq4VGLpDMNFwWo4AxFkcSVcmHJf8GlJgBl8CEwrGILPRhPhitvhSSjxr0PhpGE+CE37M0t9SgLksH52h3Oos"
    "lPAIJUDc8nOgefokBvddjiWJy2tQbjl8EbCm4hpC0tE1I1Mfm47mtoXbZRfHFIQcHmx8oAiHc7EST3LnaAo4Bp7gYwwqGQEq"
    "yxIdKD6pw2CSI5ZTZgfiE6SZZKlp+Z2AfbvJsKN0YsWlbdfGGfF8IkHIAfUTDIj12gIcGwoKeRwVpgLDmNaMTxRgPhsY8mTP"
    "3BJMCrQWJRNoGYwmhRivKcB1+2BbHsch0DJ2rjiBJxX5yQIsDcfHPHEKrcF0AtDDaw5mqnpUQqlnM8A51JHLto/E4tPqdAfV"
    "jhNSt+N6vm024q88y3KQapf1nnAH/UgBFnLgPk98b5gEt9kdtDhUSHwPwdSVgS16EtS1AtU0ZCm3H7qMIpMxgJkUiqm6CGNi"
    "8bEvjQt6vwMMrxxxmWMzTHWRXF5g9fpdAdZ1vPgjX6VZvpstw4SC3KEV5bj9rtXkzZWNZ0A1DYPSAf4JrqKQO60jm6Jvz3ng"
    "cQPMZsCfNKJjML6W22zBeCpMbOn1XBesPiYvMnL0ZSruSWvtNphYHdJcRF0UA5hUUU9Z4dX1MJOCO5GchvwwoWD8DCzvh2ji"
    "Ldv87YuStpumv9fRdtMDmbspf/TiFQVYfJwbxl3Z9YSJjshvk7CEPqAQS/nV2IshQCoZwTEXmghKpT3HkxJ3QLxyQL3Wvy/Z"
    "rzcPwdJwOFaq7UJG28Vk26VU2wf0trkrsWBxCIZLa6KQbKKYaqKkN3FAeKsj+Rgv+hy9Lxa1nPv0SIzX466/D8ALndeBptfr"
    "Ca81UU++7RJvlUUJmmZNlTLM7EDSzEYyzOygiPqPDkOKaZZ8rUq7C44OQ5CRPP6YTUETbqzC0nDMWI41KUJeCocycWOpdp3Q"
    "FytBsTwCpdtBYkWKbWUgzO4FUMsDl2XFS4swK9568Acu+yyE4F7C9Z+EhRykGXskgzLehNXKMjLjdhhPQsm0SUP2y7bdN3HE"
    "gWhsFaY0+Jnq04nH3sXgIXCuiL2JfxpJ7/qI2TaeBhMKNG3/Zh+A8fXUrjWEgSx2xwm3Tcdt2bvCyLAMHfKeKDsQCXbcx0Hw"
    "3TChzkXuQlcaiRSkwN72V9BpmNaxco9hYpbpG9FETiYdnRgwpeHn0jQoRYHOZVIoqLlMCgUwl0mhYOXSFCfoa2EdCkXrlL6m"
    "4xFGKo5CnjREbn+eNAptHx4DZjNAcgoTo0lj4tI0+zSOYdiEgnzTgknjRpjPBrqpYogsE9Wmkt2ErjMLxEat+uSXxewch8O5"
    "eLWkxLJxM9TykGkqYSwyDUFTKW+AuSzYlT6ShRxwmUp3CwVTuRiylBKzAWMqGQ05BxqWmv8MKJhKs4xHHR38lU2RhHupFHfC"
    "TArhlaQoxo/xKKc94zkwpaG92KGBHv2JvWEQen0RG7Bfdl/EPc+FmRT8azg/9skVH8CXjOfDXBYUjD4ojaFLfBmU1cKGWKfT"
    "MKmiw4wpPLQkcWBEogK+jKewjGUK06WdfvB0pEK5MuoVBJdWfzfWK8CtpGJK/O0xoZjoF1MsbfxnYTwJ56LdgVJ5O04r3I7Z"
    "WWavmJPZ4zNkQDUN9lL3K+NWqKbxXbHBKMdsUl4WsCt1UJ1QAF1U7dt92eJxmNJQXHnNoSDl6l/r+jNRycq1A30kyC4o5GaM"
    "ZsPzGGasLeN+dLlJMJe2Fyc23muLKuhRCQ36lTOw9JZzGw1F4VQWEo9g3ZY4bd9CrwgmAWEUwFwWlMg46PfF18jkd2dSgDDS"
    "i/My3nnKYkpXPp+NAotFcsI7YEoDf2kqjI4kURBUwrCpmoaAsVEK/YiTiNVqiZ7fALMZCDDN1gyYSYG+SCpfBnwPPQGLQ9Bd"
    "zEhYb9uOH8gd8KVwJB/NlclCOSiRFjbj92rYh/qhF9IjDvztQe796OYkC/NFotU0V3q5Y0P8y7+m57t0jRPZ5LbVbZt9Z9eW"
    "902HYSYuM9v0eZF4rCLn5uSvCzCbASujmfE9h3WnyJYZHRADkWajWURqeWSVveVvjN4ES030wKgXOiMxL87ywOwClNGNyFE1"
    "Bw2nabJXcMzEExcsNG7ZJuoloJTlqDx32bsojimQZHGll+PXESwfj3m8iQpb+XfCeBLfRrqmTxHo46T44Fjln8+wFxmlKd4F"
    "E+ceG+fbCuhtLmmsO7jy6KsJmccsMY3G+Vj2zh6h8xhFSaTlJRv7ovqAfNGyaZMViTlNXvoclDdEVmBycJ68uBYpduza5Lkn"
    "s281mMa+ZXXtVpjW8YDxGY3lHgPblt4wgJkUGDDpEMmpNOQREXvl261BUyY3lAP9AbkBYLzWsaOcu7oB8HXyU7xRBVCY26jS"
    "CF//F2BCQRkSQ9fbicOmbQzHo+tY4SRL+lOKTAus18Ym7j4aGDEps6TILF2dzIsYYCmoRXrBpTeIX1zBNdCzrq2XhzJhjaQ6"
    "V3SUTfQ1yLwPA2Qd9qjn5GWW+RrEbkE1DY6Mp5iNHzfBaxO6zsefAk8OCRQwcooDhUhcSYibzUBV5glTzDB6Ajch7rQUNyTq"
    "2l9KCHNZCMyrCs7yQtmsdSpb5Zed/1CQzaoQTiLr+15DTBp7Ktu2+G2Q3L9oQ2XfqcriEiueY7gUUj7hOqlZKmWWOiJDLdSz"
    "b4vr4URUN5pe92Wl05XMeyhgbOgX8TRgCoyjhf+0amPM63ytCEfysaZ58555ozvDPyWNE71F+RR1nJNnNo7nQ3E9wDSSVJTY"
    "oilFjTsMxtTy7Sd2CcbwvF0/foONFQxaAtFAQSLLObh4RuavG7OnpKIy07aa23zgtHnQOyE+KWlcksoSU+wzExK8ElUwCZNM"
    "Ao6E4dNqU9HBlOZhWlx2HR2GvtVizqfB8n4A29T9XjUNqeVvxHXlo1wYpl63D26WlCgguILnVpjPBspm3b+dhNkMeCxTRRxq"
    "poJLHse0YTYDJRuFetG7PTIC3j9czb6DvReODsPTZiXgcblEUMmHbN8zQ0/cFLy/ANfvi6h9QjEQqY7yx+5eAItD4LrXNuj3"
    "FWB5P8Tu/4cx/yxU08DgrI7RjdSgZzacUO439EC++yB7cEw8BMUPHngkCOwuR62ZVpcWaLjdE/Goul18vQALOQDjJ045yZEd"
    "zBnZ6LCRlZWRsT3FMGFxCPCZr/aOK86sbDMrys2MeyO+GWRtQnyJerCQA4yOX70syA1l1xQgaxG/UB6jZwkXkNuGcsNpbMOh"
    "TDy1NhZsjYXpZGaiNTa8kowqeyJwyGqWX/0twaSKxGapK7p4LYi3PxdyYNe0nfHvV1V/iOvQx3MRy7KKTpGS2DmJh0tPhWoa"
    "kq0lVOJpMo7Tw4bZSGxt07kDZlLg6yzbVi5Xb6b7iAQMmyySPsVkT3HxPxbAEyTrsJCDvqZAL9ymjyPjd2LdXhBjSwnUTX/b"
    "gv+1En679asFWBoOxKZp4xu9gP03vF0xAoMDtEXeBMvtZAPywDPheAOTd8zrind9KYwImoR3iiv4k6GvK8DiEET3k4CsekcB"
    "DucixCn2Y/jyFDBqhAXdWm+OAPQFaEDk85U6jvJmdWrPFmBUQh9HlFTtz8GUBkTnER/l7+QCVSBD7DjAbqHi9FXilB3hdEQZ"
    "T8iOyMsAVtrE9RZKoMoxmNbB7YnzOKWSFUQ7daaNS1VY800wkwKxs7fuJAhavBR5A0xp+HX2JxEe5I8OcqLGQfbHfe74P0zy"
    "QAQ="
)


@cache
def _pool() -> Any:
    data = zlib.decompress(base64.b64decode("".join(_DESCRIPTOR)))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(descriptor_pb2.FileDescriptorProto.FromString(data))
    return pool


@cache
def message_class(name: str = "NNablaProtoBuf") -> Any:
    """The generated message class ``name`` of nnabla's schema (``NNablaProtoBuf``...)."""
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName(name))
