# Reconstruction for the evaluation (own text): the capability helpers vLLM's platform offers.
class DeviceCapability:
    def __init__(self, major, minor):
        self.major = major
        self.minor = minor


class Platform:
    def get_device_capability(self, device_id=0):
        raise NotImplementedError

    def is_device_capability_family(self, capability, device_id=0):
        raise NotImplementedError
