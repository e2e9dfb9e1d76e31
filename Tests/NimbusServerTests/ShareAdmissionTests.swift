@testable import NimbusServer
import NimbusWire
import Testing

/// The pure rules of share invitations (server-0025): who may accept a URL, and what saving a
/// share does to each membership.
@Suite("Sharing: admission and save rules")
struct ShareAdmissionTests {
    typealias Membership = ShareAdmission.Membership

    static let admissions: [(String, Bool, Membership?, SharePermission?, SharePermission, ShareAdmission?)] = [
        ("the owner", true, nil, nil, .readWrite, nil),
        ("invited", false, Membership(state: .invited, permission: .readOnly, isPublic: false), nil, .none,
         .member(permission: .readOnly, state: .invited, isPublic: false)),
        ("accepted", false, Membership(state: .accepted, permission: .readWrite, isPublic: false), nil, .none,
         .member(permission: .readWrite, state: .accepted, isPublic: false)),
        ("left", false, Membership(state: .left, permission: .readOnly, isPublic: false), nil, .none,
         .member(permission: .readOnly, state: .left, isPublic: false)),
        ("removed, even with a public permission", false, Membership(state: .removed, permission: .readOnly, isPublic: false), nil, .readWrite, nil),
        ("a row of an ended share counts as none", false, Membership(state: .ended, permission: .readOnly, isPublic: false), nil, .none, nil),
        ("a row of an ended share, public link", false, Membership(state: .ended, permission: .readOnly, isPublic: false), nil, .readOnly,
         .anyone(permission: .readOnly)),
        ("a pending invitation by name", false, nil, .readWrite, .none, .invitedByName(permission: .readWrite)),
        ("a stranger, no public permission", false, nil, nil, .none, nil),
        ("a stranger, public read-only", false, nil, nil, .readOnly, .anyone(permission: .readOnly)),
        ("a public participant who left, link still open", false, Membership(state: .left, permission: .readOnly, isPublic: true), nil, .readWrite,
         .member(permission: .readWrite, state: .left, isPublic: true)),
        ("a public participant removed when the link closed, link open again", false,
         Membership(state: .removed, permission: .readOnly, isPublic: true), nil, .readWrite, .anyone(permission: .readWrite)),
        ("a public participant removed when the link closed, still closed", false,
         Membership(state: .removed, permission: .readOnly, isPublic: true), nil, .none, nil),
        ("a public participant who left, link closed", false, Membership(state: .left, permission: .readOnly, isPublic: true), nil, .none, nil),
    ]

    @Test("who may accept a share URL, and with what", arguments: admissions)
    func admission(_ label: String, _ isOwner: Bool, _ membership: Membership?, _ invitation: SharePermission?,
                   _ publicPermission: SharePermission, _ expected: ShareAdmission?) {
        #expect(ShareAdmission.decide(isOwner: isOwner, membership: membership, invitation: invitation, publicPermission: publicPermission) == expected, "\(label)")
    }

    static let steps: [(String, Membership?, SharePermission?, SharePermission, ShareSaveStep)] = [
        ("a new name is invited", nil, .readOnly, .none, .invite(.readOnly)),
        ("nobody, not named", nil, nil, .readOnly, .none),
        ("accepted keeps access, new permission", Membership(state: .accepted, permission: .readOnly, isPublic: false), .readWrite, .none,
         .update(permission: .readWrite, state: .accepted, isPublic: false)),
        ("accepted, unchanged", Membership(state: .accepted, permission: .readOnly, isPublic: false), .readOnly, .none, .none),
        ("left stays left", Membership(state: .left, permission: .readOnly, isPublic: false), .readOnly, .none, .none),
        ("removed is invited again", Membership(state: .removed, permission: .readOnly, isPublic: false), .readOnly, .none,
         .update(permission: .readOnly, state: .invited, isPublic: false)),
        ("accepted left out is revoked", Membership(state: .accepted, permission: .readOnly, isPublic: false), nil, .readWrite, .revoke),
        ("invited left out is removed", Membership(state: .invited, permission: .readOnly, isPublic: false), nil, .none, .markRemoved),
        ("left, left out, is removed", Membership(state: .left, permission: .readOnly, isPublic: false), nil, .none, .markRemoved),
        ("public follows the public permission", Membership(state: .accepted, permission: .readOnly, isPublic: true), nil, .readWrite,
         .update(permission: .readWrite, state: .accepted, isPublic: true)),
        ("public, unchanged", Membership(state: .accepted, permission: .readOnly, isPublic: true), nil, .readOnly, .none),
        ("public, link closed", Membership(state: .accepted, permission: .readOnly, isPublic: true), nil, .none, .revoke),
        ("public who left, link closed", Membership(state: .left, permission: .readOnly, isPublic: true), nil, .none, .markRemoved),
        ("public who left, link open", Membership(state: .left, permission: .readOnly, isPublic: true), nil, .readOnly, .none),
        ("public named becomes named", Membership(state: .accepted, permission: .readWrite, isPublic: true), .readWrite, .readWrite,
         .update(permission: .readWrite, state: .accepted, isPublic: false)),
        ("removed stays removed", Membership(state: .removed, permission: .readOnly, isPublic: false), nil, .none, .none),
    ]

    @Test("what saving a share does to one membership", arguments: steps)
    func saveStep(_ label: String, _ current: Membership?, _ named: SharePermission?, _ publicPermission: SharePermission, _ expected: ShareSaveStep) {
        #expect(ShareSaveStep.plan(current: current, named: named, publicPermission: publicPermission) == expected, "\(label)")
    }

    @Test("secrets are 256 random bits in base64url; only that shape is looked up")
    func secrets() {
        let secrets = (0..<50).map { _ in ShareSecrets.newSecret() }
        #expect(Set(secrets).count == 50)
        #expect(secrets.allSatisfy(ShareSecrets.isWellFormed))
        #expect(!ShareSecrets.isWellFormed(String(secrets[0].dropLast())))
        #expect(!ShareSecrets.isWellFormed(String(secrets[0].dropLast()) + "="))
        #expect(!ShareSecrets.isWellFormed(String(secrets[0].dropLast()) + "é"))
        #expect(ShareSecrets.path(of: secrets[0]) == "/v1/shares/" + secrets[0])
    }
}
