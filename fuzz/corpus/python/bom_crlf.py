# A CRLF file with a UTF-8 BOM: offsets stay byte offsets into the file as on disk.
import torch


def crlf_gate():
    major, minor = torch.cuda.get_device_capability()
    if major in (9, 10):  # expect: python-gate scope=crlf_gate sm_90=true sm_120=false
        return """multi
line supported_major_versions=[9, 10]
"""
    return get_nvcc_flags_list(supported_major_versions=[9,  # expect: python-gate scope=crlf_gate sm_100=true sm_121=false
                                                         10])
